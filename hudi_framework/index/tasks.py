"""Lookup tasks and indexed files as Arrow tables, for engines that ship them between processes.

A Spark engine builds a DataFrame from :func:`tasks_to_arrow` (one row per task), runs
``RecordIndex.lookup`` in ``mapInArrow`` after :func:`tasks_from_arrow`, and never pickles plugin
objects or storage clients. :func:`merge_lookup_tasks` combines tasks for one file that were
planned from different batches of incoming keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.contracts.index import IndexedFile, LookupTask
from hudi_framework.contracts.indexing.key_arrays import as_key_array

#: Columns of one :class:`IndexedFile`.
FILE_SCHEMA: Final = pa.schema(
    [
        pa.field("partition_path", pa.large_string(), nullable=False),
        pa.field("file_id", pa.large_string(), nullable=False),
        pa.field("instant_time", pa.large_string(), nullable=False),
        pa.field("path", pa.large_string(), nullable=False),
        pa.field("min_key", pa.large_string()),
        pa.field("max_key", pa.large_string()),
    ]
)
#: Columns of one :class:`LookupTask`: its file, then its keys (null = every key in the file).
TASK_SCHEMA: Final = pa.schema([*FILE_SCHEMA, pa.field("keys", pa.large_list(pa.large_string()))])


def files_to_arrow(files: Sequence[IndexedFile]) -> pa.Table:
    """One row per file (:data:`FILE_SCHEMA`)."""
    columns = {name: [getattr(f, name) for f in files] for name in FILE_SCHEMA.names}
    return pa.Table.from_pydict(columns, schema=FILE_SCHEMA)


def files_from_arrow(table: pa.Table) -> list[IndexedFile]:
    """Invert :func:`files_to_arrow`."""
    return [IndexedFile(**row) for row in table.select(FILE_SCHEMA.names).to_pylist()]


def tasks_to_arrow(tasks: Sequence[LookupTask]) -> pa.Table:
    """One row per task (:data:`TASK_SCHEMA`); keys become one list value (no per-key Python)."""
    files = files_to_arrow([t.file for t in tasks])
    lengths = [len(t.keys) if t.keys is not None else 0 for t in tasks]
    flat = [t.keys for t in tasks if t.keys is not None]
    values = pa.concat_arrays(flat) if flat else pa.array([], pa.large_string())
    offsets = pa.array([0, *_cumsum(lengths)], pa.int64())
    mask = pa.array([t.keys is None for t in tasks], pa.bool_())
    keys = pa.LargeListArray.from_arrays(offsets, values, mask=mask)
    return files.append_column(TASK_SCHEMA.field("keys"), keys)


def _cumsum(values: Iterable[int]) -> list[int]:
    out, total = [], 0
    for v in values:
        total += v
        out.append(total)
    return out


def tasks_from_arrow(table: pa.Table) -> list[LookupTask]:
    """Invert :func:`tasks_to_arrow` (key arrays are zero-copy slices of the table)."""
    files = files_from_arrow(table)
    keys = contiguous(table.column("keys"))
    missing: list[bool] = keys.is_null().to_pylist()
    return [
        LookupTask(file, None if none else as_key_array(keys[i].values))
        for i, (file, none) in enumerate(zip(files, missing, strict=True))
    ]


def merge_lookup_tasks(tasks: Iterable[LookupTask]) -> list[LookupTask]:
    """One task per file path: keys united and made distinct (None, i.e. every key, wins)."""
    by_path: dict[str, list[LookupTask]] = {}
    for task in tasks:
        by_path.setdefault(task.file.path, []).append(task)
    merged = []
    for group in by_path.values():
        if len(group) == 1:
            merged.append(group[0])
            continue
        file = group[0].file
        key_arrays = [t.keys for t in group if t.keys is not None]
        if len(key_arrays) < len(group):
            merged.append(LookupTask(file, None))
        else:
            merged.append(LookupTask(file, as_key_array(pc.unique(pa.concat_arrays(key_arrays)))))
    return merged
