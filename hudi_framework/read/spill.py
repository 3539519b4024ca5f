"""Spill files: rows hash-partitioned by record key into local Arrow IPC streams.

A merged read keeps the log records of one file group in memory while they fit the merge memory
bound (``hoodie.memory.merge.max.size``). Past it, rows go to ``num_partitions`` spill files chosen by
a hash of the record key, so every version of a key (from the logs *and* the base file) lands in the
same partition, and the merge then runs one partition at a time. Within a partition rows keep the
order they were added in, which is what the merge needs (older versions first).

The hash is computed on the key's bytes with numpy (no per-row Python), and only has to be
deterministic within one process: spill files never outlive the read that wrote them.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.contracts.arrays import indices as positions

#: Partitions a spilled file group is split into.
DEFAULT_SPILL_PARTITIONS: Final = 8

_MULTIPLIER: Final = np.uint64(0x9E3779B97F4A7C15)
_OFFSET: Final = np.uint64(0x632BE59BD9B4E019)
_MIX: Final = np.uint64(0xBF58476D1CE4E5B9)


def key_partitions(keys: pa.Array | pa.ChunkedArray, num_partitions: int) -> npt.NDArray[np.int64]:
    """The spill partition (``0 <= p < num_partitions``) of every key, computed from its bytes.

    Args:
        keys: Record keys without nulls (any type castable to binary; strings in practice).
        num_partitions: How many partitions.
    """
    if isinstance(keys, pa.ChunkedArray):
        keys = contiguous(keys)
    if not pa.types.is_binary(keys.type):
        keys = pc.cast(keys if pa.types.is_string(keys.type) else pc.cast(keys, pa.string()), pa.binary())
    n = len(keys)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.frombuffer(keys.buffers()[1], dtype=np.int32)[keys.offset : keys.offset + n + 1].astype(np.int64)
    data_buffer = keys.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1] - offsets[0]
    lengths = offsets[1:] - offsets[:-1]
    segment = data[offsets[0] : offsets[-1]].astype(np.uint64)
    # Each byte weighted by its position inside its key, so permuted keys hash apart.
    position = (np.arange(len(segment), dtype=np.int64) - np.repeat(starts, lengths)).astype(np.uint64)
    contributions = (segment + np.uint64(1)) * (position * _MULTIPLIER + _OFFSET)
    hashes = np.zeros(n, dtype=np.uint64)
    nonempty = lengths > 0
    if nonempty.any():
        # Empty keys hold no bytes, so each non-empty key's run ends where the next one starts.
        hashes[nonempty] = np.add.reduceat(contributions, starts[nonempty])
    hashes ^= lengths.astype(np.uint64)
    hashes *= _MIX
    hashes ^= hashes >> np.uint64(31)
    return (hashes % np.uint64(num_partitions)).astype(np.int64)


class SpillPartitions:
    """``num_partitions`` append-only Arrow IPC files of one schema in a private temporary directory.

    Use as a context manager (or call :meth:`close`): the directory is removed on exit.
    """

    def __init__(self, schema: pa.Schema, num_partitions: int = DEFAULT_SPILL_PARTITIONS, *, prefix: str) -> None:
        """Create the directory; files are opened on first write.

        Args:
            schema: The schema of every table written.
            num_partitions: How many partitions.
            prefix: Directory name prefix (diagnostics).
        """
        self.schema = schema
        self.num_partitions = num_partitions
        self._dir = Path(tempfile.mkdtemp(prefix=f"hudi-fw-spill-{prefix}-"))
        self._writers: dict[int, pa.ipc.RecordBatchStreamWriter] = {}
        self._sinks: dict[int, pa.NativeFile] = {}
        self.rows_written = 0
        self.bytes_written = 0

    def __enter__(self) -> SpillPartitions:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _path(self, partition: int) -> Path:
        return self._dir / f"part-{partition:04d}.arrows"

    def write(self, table: pa.Table, partitions: npt.NDArray[np.int64]) -> None:
        """Append each row of ``table`` to the file of its partition (row order kept per partition).

        Args:
            table: Rows of :attr:`schema`.
            partitions: One partition number per row.
        """
        if not table.num_rows:
            return
        order = np.argsort(partitions, kind="stable")
        sorted_parts = partitions[order]
        bounds = np.flatnonzero(np.r_[True, sorted_parts[1:] != sorted_parts[:-1], True])
        ordered = table.take(positions(order))
        for start, stop in itertools.pairwise(bounds):
            part = int(sorted_parts[start])
            chunk = ordered.slice(int(start), int(stop - start))
            self._writer(part).write_table(chunk)
            self.rows_written += chunk.num_rows
            self.bytes_written += chunk.nbytes

    def _writer(self, partition: int) -> pa.ipc.RecordBatchStreamWriter:
        writer = self._writers.get(partition)
        if writer is None:
            sink = pa.OSFile(str(self._path(partition)), "wb")
            writer = pa.ipc.new_stream(sink, self.schema)
            self._sinks[partition] = sink
            self._writers[partition] = writer
        return writer

    def finish(self) -> None:
        """Close the writers; partitions become readable."""
        for part, writer in self._writers.items():
            writer.close()
            self._sinks[part].close()
        self._writers.clear()
        self._sinks.clear()

    def batches(self, partition: int) -> Iterator[pa.RecordBatch]:
        """Stream one partition's rows back, in the order written (call :meth:`finish` first)."""
        path = self._path(partition)
        if not path.exists():
            return
        with pa.OSFile(str(path), "rb") as source:
            yield from pa.ipc.open_stream(source)

    def read(self, partition: int) -> pa.Table:
        """One partition's rows as a table (empty table of :attr:`schema` when nothing was written)."""
        batches = list(self.batches(partition))
        return pa.Table.from_batches(batches, schema=self.schema)

    def close(self) -> None:
        """Close open files and remove the directory."""
        for writer in self._writers.values():
            writer.close()
        for sink in self._sinks.values():
            sink.close()
        self._writers.clear()
        self._sinks.clear()
        shutil.rmtree(self._dir, ignore_errors=True)
