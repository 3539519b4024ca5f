"""A per-key, pure-Python port of Apache Hudi's bloom filters: the reference for the vectorised code.

It mirrors ``InternalDynamicBloomFilter.add``/``getActiveStandardBF`` and Hadoop's
``BloomFilter.add``/``write`` statement by statement, deliberately without numpy.
"""

from __future__ import annotations

import struct

from hudi_framework.contracts.indexing.murmur import hash_positions_scalar


class JavaDynamicBloomFilter:
    """``InternalDynamicBloomFilter`` (``DYNAMIC_V0``); ``SIMPLE`` when ``simple=True``."""

    def __init__(self, vector_size: int, nb_hash: int, nr: int, max_nr: int, *, simple: bool = False) -> None:
        self.vector_size = vector_size
        self.nb_hash = nb_hash
        self.nr = nr
        self.max_nr = max_nr
        self.simple = simple
        self.current = 0
        self.reached_max = False
        self.cur_matrix_index = 0
        self.matrix: list[set[int]] = [set()]

    def _active(self) -> set[int] | None:
        if self.reached_max:
            row = self.matrix[self.cur_matrix_index % len(self.matrix)]
            self.cur_matrix_index += 1
            return row
        if self.current >= self.nr and len(self.matrix) * self.nr < self.max_nr:
            return None
        if self.current >= self.nr and len(self.matrix) * self.nr >= self.max_nr:
            self.reached_max = True
            return self.matrix[0]
        return self.matrix[-1]

    def add(self, key: str) -> None:
        positions = hash_positions_scalar(key.encode("utf-8"), self.nb_hash, self.vector_size)
        if self.simple:
            self.matrix[0].update(positions)
            return
        row = self._active()
        if row is None:
            self.matrix.append(set())
            row = self.matrix[-1]
            self.current = 0
        row.update(positions)
        self.current += 1

    def _row_bytes(self, row: set[int]) -> bytes:
        out = bytearray((self.vector_size + 7) // 8)
        for i in row:
            out[i >> 3] |= 1 << (i & 7)
        return struct.pack(">iibi", -1, self.nb_hash, 1, self.vector_size) + bytes(out)

    def to_bytes(self) -> bytes:
        if self.simple:
            return self._row_bytes(self.matrix[0])
        header = struct.pack(">iibi", -1, self.nb_hash, 1, self.vector_size)
        body = b"".join(self._row_bytes(r) for r in self.matrix)
        return header + struct.pack(">iii", self.nr, self.current, len(self.matrix)) + body

    def rows_containing(self, key: str) -> list[int]:
        positions = hash_positions_scalar(key.encode("utf-8"), self.nb_hash, self.vector_size)
        return [i for i, row in enumerate(self.matrix) if all(p in row for p in positions)]
