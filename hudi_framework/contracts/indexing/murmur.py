"""Hadoop's MurmurHash2 variant, as Apache Hudi's bloom filters use it (hudi-format.md section 5.3).

Two implementations of one function:

* :func:`murmur_hash_scalar` is a line-by-line transcription of ``MurmurHash.hash(byte[], int)``,
  kept as the reference the tests compare against.
* :class:`PreparedKeys` hashes many keys at once with numpy ``uint32`` arithmetic (which wraps
  like Java's ``int``). Keys are sorted by their number of 4-byte words, longest first, so the
  keys that still have a word ``w`` are always a prefix of the arrays and every step is a slice,
  not a mask. The word mixing (``k *= m; k ^= k >>> 24; k *= m``) does not depend on the seed, so
  it runs once per key; each of the ``nbHash`` chained hashes then costs one multiply and one xor
  per word.

Java quirks reproduced on purpose: the seed is xored with the byte length; the 1-3 tail bytes are
Java ``byte`` values, **sign-extended** before the shift, and taken as ``data[len-3] << 16``,
``data[len-2] << 8``, ``data[len-1]`` (Hadoop's order, not the reference C code's).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt

from hudi_framework.contracts.indexing.key_arrays import KeysLike, as_key_array, utf8_buffers

__all__ = ["U32", "PreparedKeys", "bit_positions", "hash_positions_scalar", "murmur_hash", "murmur_hash_scalar"]

_M: Final = 0x5BD1E995
_M32: Final = np.uint32(_M)
_MASK: Final = 0xFFFFFFFF

U32 = npt.NDArray[np.uint32]
_T = TypeVar("_T", bound=np.generic)


def _signed(value: int) -> int:
    return value - (1 << 32) if value & 0x80000000 else value


def murmur_hash_scalar(data: bytes, seed: int = 0) -> int:
    """Hash one byte string exactly as Hadoop's ``MurmurHash.hash(data, length, seed)``.

    Args:
        data: The key bytes.
        seed: The seed (a Java ``int``; any Python int is reduced to 32 bits).

    Returns:
        The hash as a signed 32-bit integer, as Java returns it.
    """
    length = len(data)
    h = (seed ^ length) & _MASK
    for i in range(length >> 2):
        k = int.from_bytes(data[4 * i : 4 * i + 4], "little")
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    left = length & 3
    if left:
        # Java widens each byte with sign extension before shifting it.
        if left >= 3:
            h ^= (_signed_byte(data[length - 3]) << 16) & _MASK
        if left >= 2:
            h ^= (_signed_byte(data[length - 2]) << 8) & _MASK
        h ^= _signed_byte(data[length - 1]) & _MASK
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return _signed(h)


def _signed_byte(b: int) -> int:
    return b - 256 if b >= 128 else b


def hash_positions_scalar(data: bytes, nb_hash: int, vector_size: int) -> list[int]:
    """Bit positions of one key, exactly as ``HashFunction.hash(Key)`` (reference implementation).

    Each hash seeds the next (the first with 0); a position is ``|h % vector_size|`` with Java's
    truncating ``%``.
    """
    out = []
    seed = 0
    for _ in range(nb_hash):
        seed = murmur_hash_scalar(data, seed)
        remainder = abs(seed) % vector_size
        out.append(remainder)
    return out


@dataclass(frozen=True, slots=True)
class PreparedKeys:
    """Many keys ready to be hashed with any seeds, in *prepared order* (see :attr:`order`).

    Attributes:
        order: ``order[i]`` is the input index of the i-th prepared key (longest keys first).
        lengths: Byte lengths, prepared order.
        words: ``words[w]`` holds the mixed ``w``-th 4-byte word of every key that has one; those
            keys are a prefix of the prepared order, so ``len(words[w])`` only shrinks with ``w``.
        tail: The xored, sign-extended tail bytes (0 when a key has no tail).
        tail_mul: ``m`` for keys with a tail, 1 otherwise (Java multiplies only after a tail).
    """

    order: npt.NDArray[np.intp]
    lengths: U32
    words: tuple[U32, ...]
    tail: U32
    tail_mul: U32

    def __len__(self) -> int:
        return len(self.order)

    @classmethod
    def from_keys(cls, keys: KeysLike) -> PreparedKeys:
        """Prepare string keys (hashed as UTF-8; nulls hash like empty strings, callers mask them)."""
        offsets, data = utf8_buffers(as_key_array(keys))
        return cls.from_buffers(offsets, data)

    @classmethod
    def from_buffers(cls, offsets: npt.NDArray[np.int64], data: npt.NDArray[np.uint8]) -> PreparedKeys:
        """Prepare keys given as absolute ``offsets`` (``n + 1`` entries) into UTF-8 ``data``."""
        if offsets.size and offsets[0]:
            # A slice of a larger array: copy (below) only its own bytes, not the whole buffer.
            data = data[offsets[0] : offsets[-1]]
            offsets = offsets - offsets[0]
        elif offsets.size:
            data = data[: offsets[-1]]
        starts_in = offsets[:-1]
        lengths_in = offsets[1:] - starts_in
        if lengths_in.size and not (lengths_in != lengths_in[0]).any():
            return cls._uniform(data, lengths_in.size, int(lengths_in[0]))
        nwords_in = lengths_in >> 2
        order = np.argsort(-nwords_in, kind="stable")
        starts = starts_in[order]
        lengths = lengths_in[order]
        nwords = nwords_in[order]
        # Pad so a 4-byte read at any byte offset stays in bounds, then view every offset as a
        # little-endian uint32 (overlapping, unaligned reads are fine for numpy).
        padded = np.zeros(data.size + 4, dtype=np.uint8)
        padded[: data.size] = data
        as_u32 = np.ndarray(shape=(data.size + 1,), dtype="<u4", buffer=padded, strides=(1,))
        words: list[U32] = []
        max_words = int(nwords[0]) if nwords.size else 0
        # counts[w] = number of keys with more than w words = length of the prefix that has word w.
        counts = np.searchsorted(-nwords, -np.arange(max_words), side="left")
        for w in range(max_words):
            count = int(counts[w])
            k = as_u32[starts[:count] + 4 * w].astype(np.uint32, copy=False)
            k *= _M32
            k ^= k >> np.uint32(24)
            k *= _M32
            words.append(k)
        left = lengths & 3
        ends = starts + lengths
        signed = padded.view(np.int8)
        tail = np.zeros(len(order), dtype=np.uint32)
        # Sign-extend each tail byte to 32 bits (int8 -> int32 -> reinterpret as uint32).
        for needed, back, shift in ((3, 3, 16), (2, 2, 8), (1, 1, 0)):
            has = left >= needed
            byte = signed[np.where(has, ends - back, 0)].astype(np.int32).view(np.uint32)
            tail ^= np.where(has, byte << np.uint32(shift), np.uint32(0)).astype(np.uint32)
        tail_mul = np.where(left != 0, _M32, np.uint32(1)).astype(np.uint32)
        return cls(order, lengths.astype(np.uint32), tuple(words), tail, tail_mul)

    @classmethod
    def _uniform(cls, data: npt.NDArray[np.uint8], n: int, length: int) -> PreparedKeys:
        """Keys of one byte length (fixed-format keys are common): a row per key, columns sliced
        directly, no sort and no gathers; the same result as the general path."""
        rows = data[: n * length].reshape(n, length)
        words: list[U32] = []
        for w in range(length >> 2):
            k = np.ascontiguousarray(rows[:, 4 * w : 4 * w + 4]).view("<u4").reshape(n).astype(np.uint32)
            k *= _M32
            k ^= k >> np.uint32(24)
            k *= _M32
            words.append(k)
        left = length & 3
        tail = np.zeros(n, dtype=np.uint32)
        signed = rows.view(np.int8)
        for needed, back, shift in ((3, 3, 16), (2, 2, 8), (1, 1, 0)):
            if left >= needed:
                tail ^= signed[:, length - back].astype(np.int32).view(np.uint32) << np.uint32(shift)
        tail_mul = np.full(n, _M32 if left else np.uint32(1), dtype=np.uint32)
        return cls(np.arange(n), np.full(n, length, dtype=np.uint32), tuple(words), tail, tail_mul)

    def hash(self, seeds: U32) -> U32:
        """Hash every key with its own seed; ``seeds`` and the result are in prepared order (uint32)."""
        h = seeds ^ self.lengths
        for k in self.words:
            head = h[: len(k)]  # a view: the in-place updates land in h
            head *= _M32
            head ^= k
        h ^= self.tail
        h *= self.tail_mul
        h ^= h >> np.uint32(13)
        h *= _M32
        h ^= h >> np.uint32(15)
        return h

    def positions(self, nb_hash: int, vector_size: int) -> Iterator[U32]:
        """Yield the bit positions of every key for hash function 0, 1, ... ``nb_hash - 1``.

        Matches :func:`hash_positions_scalar` per key; arrays are uint32 in prepared order.
        """
        seeds = np.zeros(len(self.order), dtype=np.uint32)
        for _ in range(nb_hash):
            seeds = self.hash(seeds)
            yield bit_positions(seeds, vector_size)

    def select(self, mask: npt.NDArray[np.bool_]) -> PreparedKeys:
        """The keys where ``mask`` (prepared order) is True, still in prepared order.

        Filtering keeps the longest-first order, so every ``words[w]`` stays a prefix.
        """
        words = tuple(k[mask[: len(k)]] for k in self.words)
        return PreparedKeys(self.order[mask], self.lengths[mask], words, self.tail[mask], self.tail_mul[mask])

    def to_input_order(self, values: npt.NDArray[_T]) -> npt.NDArray[_T]:
        """Reorder a per-key array from prepared order back to input order."""
        out = np.empty_like(values)
        out[self.order] = values
        return out

    def from_input_order(self, values: npt.NDArray[_T]) -> npt.NDArray[_T]:
        """Reorder a per-key array from input order to prepared order."""
        return values[self.order]


def bit_positions(hashes: U32, vector_size: int) -> U32:
    """Bit positions ``|h % vector_size|`` (Java's truncating ``%``) of uint32-stored int32 hashes."""
    # |h % size| equals |h| % size. np.abs of int32 -2**31 stays -2**31, whose uint32 view is 2**31:
    # the right magnitude, and a uint32 modulo is several times faster than an int64 one.
    magnitude = np.abs(hashes.view(np.int32)).view(np.uint32)
    return magnitude % np.uint32(vector_size)


def murmur_hash(keys: KeysLike, seed: int = 0) -> npt.NDArray[np.int32]:
    """Hash the UTF-8 bytes of every key with one seed; signed int32 results in input order."""
    prepared = PreparedKeys.from_keys(keys)
    seeds = np.full(len(prepared), seed & _MASK, dtype=np.uint32)
    hashed = prepared.to_input_order(prepared.hash(seeds))
    return hashed.view(np.int32)
