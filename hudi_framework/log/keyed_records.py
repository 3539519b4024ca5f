"""Records that differ only in their key: many keys sharing a few payloads, held column-wise.

Metadata-table partitions write records of fixed shape in large numbers, and most of a batch shares
its non-key fields: every ``record_index`` record of one data file says the same location. An HFile
stores each record's value with the key blanked (:mod:`hudi_framework.log.hfile_records`), so such
records have as many distinct values as payloads: :class:`KeyedRecords` holds the keys as one Arrow
array and, per key, the index of its payload, and the HFile encoder encodes each payload once and
sorts the keys with Arrow instead of encoding one record at a time.

It is a read-only ``Sequence`` of the record dicts it stands for (built on access), so code made for
lists of records (routing, compaction) keeps working on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, overload

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["KEY_FIELD", "KeyedRecords"]

#: The record field holding the key.
KEY_FIELD: Final = "key"


@dataclass(frozen=True, eq=False)
class KeyedRecords(Sequence[dict[str, Any]]):
    """Record ``i`` is ``{"key": keys[i], **payloads[payload_index[i]]}``.

    Attributes:
        keys: The record keys (string; a null is a record without a key, which encoders reject).
        payload_index: Per key, the index of its payload in ``payloads`` (int64).
        payloads: The distinct non-key fields (must not hold ``key``; never mutated once shared).
    """

    keys: pa.Array
    payload_index: npt.NDArray[np.int64]
    payloads: tuple[Mapping[str, Any], ...]

    def __post_init__(self) -> None:
        if len(self.keys) != len(self.payload_index):
            raise ValueError(f"{len(self.keys)} keys but {len(self.payload_index)} payload indexes")

    @classmethod
    def from_groups(cls, groups: Sequence[tuple[pa.Array, Mapping[str, Any]]]) -> KeyedRecords:
        """Records of ``(keys, payload)`` groups, in order: each group's keys share its payload."""
        if not groups:
            return cls.empty()
        arrays = [g[0].combine_chunks() if isinstance(g[0], pa.ChunkedArray) else g[0] for g in groups]
        keys = pa.concat_arrays([a.cast(pa.string()) for a in arrays])
        sizes = np.fromiter((len(g[0]) for g in groups), dtype=np.int64, count=len(groups))
        index = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
        return cls(keys, index, tuple(g[1] for g in groups))

    @classmethod
    def empty(cls) -> KeyedRecords:
        return cls(pa.array([], pa.string()), np.zeros(0, dtype=np.int64), ())

    def __len__(self) -> int:
        return len(self.payload_index)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> KeyedRecords: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | KeyedRecords:
        if isinstance(i, slice):
            return self.take(np.arange(len(self))[i])
        return {KEY_FIELD: self.keys[i].as_py(), **self.payloads[int(self.payload_index[i])]}

    def __iter__(self) -> Iterator[dict[str, Any]]:
        keys = self.keys.to_pylist()
        for key, p in zip(keys, self.payload_index.tolist(), strict=True):
            yield {KEY_FIELD: key, **self.payloads[p]}

    def take(self, indices: npt.NDArray[np.int64]) -> KeyedRecords:
        """The records at ``indices``, in that order (payloads shared, not copied)."""
        return KeyedRecords(self.keys.take(pa.array(indices, pa.int64())), self.payload_index[indices], self.payloads)

    def last_per_key(self) -> KeyedRecords:
        """One record per key, the last of each key (a later write of a key replaces an earlier)."""
        if len(self) < 2 or pc.count_distinct(self.keys, mode="all").as_py() == len(self):
            return self
        codes = self.keys.dictionary_encode(null_encoding="encode").indices.to_numpy(zero_copy_only=False)
        reversed_first = np.unique(codes[::-1], return_index=True)[1]
        return self.take(np.sort(len(self) - 1 - reversed_first).astype(np.int64))
