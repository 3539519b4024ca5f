"""The RECORD_POSITIONS log block header: record positions as a portable 64-bit Roaring bitmap.

Apache Hudi 1.x (``LogReaderUtils.encodePositions``) stores the base-file row indexes of a block's
records as Base64 of ``Roaring64NavigableMap.serializePortable`` after ``runOptimize``: the
RoaringFormatSpec's 64-bit extension. The records of such a block are sorted by position, so the
set's ascending order pairs the i-th record with the i-th position. Layout (all little-endian):

* ``uint64`` number of 32-bit bitmaps, then per bitmap (ascending high 32 bits): ``uint32`` high
  bits and a 32-bit portable Roaring bitmap of the low 32 bits;
* a 32-bit bitmap: cookie 12346 and ``uint32`` container count, or, when some container is a run
  container, cookie ``12347 | (count - 1) << 16`` and a bitset marking the run containers; then per
  container ``uint16`` key (bits 16-31) and ``uint16`` cardinality - 1; then ``uint32`` byte offsets
  of the containers (omitted when there are run containers and fewer than 4 containers); then the
  containers: array (sorted ``uint16`` values, at most 4096), bitmap (1024 ``uint64`` words) or
  run (``uint16`` run count, then ``uint16`` start and length - 1 per run).

Java's ``runOptimize`` makes a container a run container when that is strictly smaller
(``2 + 4 * runs`` bytes against ``2 * cardinality`` for an array, 8192 for a bitmap); the encoder
makes the same choice, so it writes the bytes Java writes.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Final

import numpy as np
import numpy.typing as npt

from hudi_framework.errors import RecordPositionsError

__all__ = ["decode_positions", "encode_positions"]

_COOKIE_NO_RUNS: Final = 12346
_COOKIE_RUNS: Final = 12347
_NO_OFFSET_THRESHOLD: Final = 4
_ARRAY_MAX: Final = 4096
_BITMAP_BYTES: Final = 8192


def _runs(low: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Starts and lengths of the runs of consecutive values of a sorted, unique array."""
    breaks = np.flatnonzero(np.diff(low) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [len(low)]))
    return low[starts], ends - starts


def _container(low: npt.NDArray[np.int64]) -> tuple[bool, bytes]:
    """(is a run container, serialised bytes) of one container's sorted unique 16-bit values."""
    starts, lengths = _runs(low)
    run_bytes = 2 + 4 * len(starts)
    plain_bytes = 2 * len(low) if len(low) <= _ARRAY_MAX else _BITMAP_BYTES
    if plain_bytes > run_bytes:
        pairs = np.empty(2 * len(starts), dtype="<u2")
        pairs[0::2], pairs[1::2] = starts, lengths - 1
        return True, struct.pack("<H", len(starts)) + pairs.tobytes()
    if len(low) <= _ARRAY_MAX:
        return False, low.astype("<u2").tobytes()
    bits = np.zeros(1 << 16, dtype=np.bool_)
    bits[low] = True
    return False, np.packbits(bits, bitorder="little").tobytes()


def _bitmap32(values: npt.NDArray[np.int64]) -> bytes:
    """Portable 32-bit Roaring serialisation of sorted unique values below 2**32."""
    keys = values >> 16
    cuts = np.flatnonzero(np.diff(keys)) + 1
    groups = np.split(values & 0xFFFF, cuts)
    group_keys = keys[np.concatenate(([0], cuts))]
    containers = [_container(g) for g in groups]
    count = len(containers)
    has_runs = any(is_run for is_run, _ in containers)
    if has_runs:
        marks = np.array([is_run for is_run, _ in containers], dtype=np.bool_)
        head = struct.pack("<I", _COOKIE_RUNS | (count - 1) << 16) + np.packbits(marks, bitorder="little").tobytes()
    else:
        head = struct.pack("<II", _COOKIE_NO_RUNS, count)
    described = np.empty(2 * count, dtype="<u2")
    described[0::2] = group_keys
    described[1::2] = [len(g) - 1 for g in groups]
    head += described.tobytes()
    if not has_runs or count >= _NO_OFFSET_THRESHOLD:
        sizes = np.array([len(body) for _, body in containers], dtype=np.int64)
        first = len(head) + 4 * count
        offsets = first + np.concatenate(([0], np.cumsum(sizes)[:-1]))
        head += offsets.astype("<u4").tobytes()
    return head + b"".join(body for _, body in containers)


def encode_positions(positions: npt.ArrayLike) -> str:
    """The RECORD_POSITIONS header value of a set of record positions (order and repeats ignored).

    Raises:
        RecordPositionsError: A negative position (Java's invalid position is -1).
    """
    values = np.unique(np.asarray(positions, dtype=np.int64))
    if len(values) and values[0] < 0:
        raise RecordPositionsError(f"record position {int(values[0])} is negative")
    highs = values >> 32
    cuts = np.flatnonzero(np.diff(highs)) + 1
    parts = [struct.pack("<Q", 0 if not len(values) else len(cuts) + 1)]
    for part in np.split(values, cuts) if len(values) else []:
        parts.append(struct.pack("<I", int(part[0] >> 32)))
        parts.append(_bitmap32(part & 0xFFFFFFFF))
    return base64.b64encode(b"".join(parts)).decode("ascii")


class _Cursor:
    """Reads little-endian fields of a serialised bitmap, with a typed error past its end."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise RecordPositionsError(f"RECORD_POSITIONS ends after {len(self.data)} bytes, {self.at + n} needed")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def unpack(self, fmt: str) -> tuple[int, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def u16s(self, n: int) -> npt.NDArray[np.int64]:
        return np.frombuffer(self.take(2 * n), dtype="<u2").astype(np.int64)


def _read_bitmap32(cur: _Cursor) -> list[npt.NDArray[np.int64]]:
    (cookie,) = cur.unpack("<I")
    if cookie & 0xFFFF == _COOKIE_RUNS:
        count = (cookie >> 16) + 1
        marks = np.unpackbits(np.frombuffer(cur.take((count + 7) // 8), dtype=np.uint8), bitorder="little")[:count]
    elif cookie == _COOKIE_NO_RUNS:
        (count,) = cur.unpack("<I")
        marks = np.zeros(count, dtype=np.uint8)
    else:
        raise RecordPositionsError(f"RECORD_POSITIONS holds no portable Roaring bitmap (cookie {cookie})")
    described = cur.u16s(2 * count)
    keys, cards = described[0::2], described[1::2] + 1
    if cookie == _COOKIE_NO_RUNS or count >= _NO_OFFSET_THRESHOLD:
        cur.take(4 * count)  # offsets: containers follow one another anyway
    out = []
    for key, card, is_run in zip(keys.tolist(), cards.tolist(), marks.tolist(), strict=True):
        if is_run:
            (n_runs,) = cur.unpack("<H")
            pairs = cur.u16s(2 * n_runs)
            starts, lengths = pairs[0::2], pairs[1::2] + 1
            low = np.repeat(starts - np.cumsum(np.concatenate(([0], lengths[:-1]))), lengths)
            low += np.arange(len(low), dtype=np.int64)
        elif card <= _ARRAY_MAX:
            low = cur.u16s(card)
        else:
            words = np.frombuffer(cur.take(_BITMAP_BYTES), dtype=np.uint8)
            low = np.flatnonzero(np.unpackbits(words, bitorder="little")).astype(np.int64)
        out.append(low + (key << 16))
    return out


def decode_positions(value: str) -> npt.NDArray[np.int64]:
    """The record positions of a RECORD_POSITIONS header value, ascending.

    Raises:
        RecordPositionsError: Not Base64, or not a portable 64-bit Roaring bitmap.
    """
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise RecordPositionsError(f"RECORD_POSITIONS is not Base64: {exc}") from None
    cur = _Cursor(data)
    (count,) = cur.unpack("<Q")
    parts: list[npt.NDArray[np.int64]] = []
    for _ in range(count):
        (high,) = cur.unpack("<I")
        parts.extend(low + (high << 32) for low in _read_bitmap32(cur))
    if cur.at != len(data):
        raise RecordPositionsError(f"RECORD_POSITIONS has {len(data) - cur.at} bytes after its bitmap")
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
