"""The metadata table's ``column_stats`` partition as a source of file statistics for data skipping.

:class:`MetadataTableStats` hands the read planner's skipping step (:mod:`hudi_framework.read.skipping`)
the statistics Apache Hudi keeps per (file, column), converted from the metadata table's value
wrappers to plain values: min and max of all requested columns as one dense union (one child per
value type), the other fields renamed to Apache Hudi's ``HoodieMetadataColumnStats`` names.

Only a metadata table that is in step with the data timeline is used (:func:`check_in_sync` for both
``files`` and ``column_stats``); otherwise no file is skipped, with a logged warning. Partition
statistics (``partition_stats``) are offered only when that partition is listed as well. A column whose
stored values cannot be typed for certain (a version-1 index without value types, holding a date or
a timestamp as a bare number) gets no statistics, so its files are kept.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import HudiError
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata.stat_values import stat_values
from hudi_framework.metadata.validate import check_in_sync
from hudi_framework.read.skipping import (
    COLUMN_NAME,
    FILE_NAME,
    IS_DELETED,
    MAX_VALUE,
    MIN_VALUE,
    NULL_COUNT,
    PARTITION,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    VALUE_COUNT,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["MetadataTableStats", "metadata_table_stats"]

_LOG = logging.getLogger(__name__)

#: Apache Hudi's ``ValueType`` ordinals whose values are stored as bare numbers, and their Arrow type.
_TEMPORAL: Final[dict[int, pa.DataType]] = {
    12: pa.date32(),  # DATE: days
    13: pa.time32("ms"),  # TIME_MILLIS
    14: pa.time64("us"),  # TIME_MICROS
    15: pa.timestamp("ms"),  # TIMESTAMP_MILLIS
    16: pa.timestamp("us"),  # TIMESTAMP_MICROS
    17: pa.timestamp("ns"),  # TIMESTAMP_NANOS
    18: pa.timestamp("ms"),  # LOCAL_TIMESTAMP_MILLIS
    19: pa.timestamp("us"),  # LOCAL_TIMESTAMP_MICROS
    20: pa.timestamp("ns"),  # LOCAL_TIMESTAMP_NANOS
}


def metadata_table_stats(
    storage: StorageBackend,
    data_properties: dict[str, str],
    data_timeline: Timeline,
    schema: pa.Schema,
    *,
    opened: Callable[[], MetadataTable | None] | None = None,
) -> MetadataTableStats | None:
    """The table's ``column_stats`` as a statistics source, or None (no MDT, or one not to be trusted).

    ``opened`` gives the MDT already opened for ``data_timeline`` (the one the read's listing used).
    """
    try:
        mdt = opened() if opened is not None else MetadataTable.open(storage, data_properties)
        if mdt is None or MetadataPartition.COLUMN_STATS not in mdt.partitions_available():
            return None
        check_in_sync(mdt, data_timeline)
        check_in_sync(mdt, data_timeline, MetadataPartition.COLUMN_STATS)
    except HudiError as e:
        _LOG.warning("data skipping without the metadata table of %s: %s", storage.root_uri, e)
        return None
    # Apache Hudi's reader prunes by partition_stats whenever the table lists it (no option of its own).
    partition_level = MetadataPartition.PARTITION_STATS in mdt.partitions_available()
    return MetadataTableStats(mdt, schema, partition_level=partition_level)


class MetadataTableStats:
    """File statistics from an (in-sync) metadata table's ``column_stats`` partition."""

    name: Final = "metadata_table"

    def __init__(self, mdt: MetadataTable, schema: pa.Schema, *, partition_level: bool = True) -> None:
        """``partition_level``: whether :meth:`partition_stats` may answer (the partition is listed)."""
        self._mdt = mdt
        self._schema = schema
        self._partition_level = partition_level

    def column_stats(self, files: Sequence[tuple[str, str]], columns: Sequence[str]) -> pa.Table | None:
        """Statistics of ``columns`` in ``files`` (``(partition path, file name)``), or None if none."""
        if not files or not columns:
            return None
        try:
            stats = self._mdt.column_stats(columns, sorted({partition for partition, _ in files}))
        except HudiError as e:  # a damaged MDT file: skip nothing rather than trust part of it
            _LOG.warning("data skipping without the metadata table: %s", e)
            return None
        wanted = pa.array(sorted({name for _, name in files}), pa.string())
        return self._shaped(stats.filter(pc.is_in(stats.column("file_name"), value_set=wanted)), columns)

    def partition_stats(self, partitions: Sequence[str], columns: Sequence[str]) -> pa.Table | None:
        """Tight partition-level statistics of ``columns`` in ``partitions`` (the shape of
        :meth:`column_stats`, ``file_name`` holding the partition path), or None if none."""
        if not partitions or not columns or not self._partition_level:
            return None
        try:
            # Partition paths resolve against the wanted ones: the files partition is not read.
            stats = self._mdt.partition_stats(columns, sorted(set(partitions)))
        except HudiError as e:
            _LOG.warning("partition statistics without the metadata table: %s", e)
            return None
        wanted = pa.array(sorted(set(partitions)), pa.string())
        keep = pc.and_(
            pc.is_in(stats.column("file_name"), value_set=wanted), pc.fill_null(stats.column("is_tight_bound"), False)
        )
        return self._shaped(stats.filter(keep), columns)

    def _shaped(self, stats: pa.Table, columns: Sequence[str]) -> pa.Table | None:
        """Rows of the MDT's statistics as a statistics table, plain typed bounds per column."""
        parts: list[pa.Table] = []
        lows: list[pa.Array] = []
        highs: list[pa.Array] = []
        for column in dict.fromkeys(columns):
            rows = stats.filter(pc.equal(stats.column("column_name"), column))
            typed = self._typed(rows, column)
            if typed is None:
                continue
            parts.append(rows)
            lows.append(typed[0])
            highs.append(typed[1])
        if not parts:
            return None
        table = pa.concat_tables(parts)
        return pa.table(
            {
                PARTITION: table.column("partition_path"),
                FILE_NAME: table.column("file_name"),
                COLUMN_NAME: table.column("column_name"),
                MIN_VALUE: _dense_union(lows),
                MAX_VALUE: _dense_union(highs),
                NULL_COUNT: table.column("null_count"),
                VALUE_COUNT: table.column("value_count"),
                TOTAL_SIZE: table.column("total_size"),
                TOTAL_UNCOMPRESSED_SIZE: table.column("total_uncompressed_size"),
                IS_DELETED: table.column("is_deleted"),
            }
        )

    def _typed(self, rows: pa.Table, column: str) -> tuple[pa.Array, pa.Array] | None:
        """Plain min and max of one column's rows, or None when their type is not certain."""
        if not rows.num_rows or self._schema.get_field_index(column) < 0:
            return None
        target = self._schema.field(column).type
        kinds = pc.unique(rows.column("value_type").combine_chunks()).to_pylist()
        if len(kinds) != 1:
            return None  # one column stored under two value types: no single order to compare in
        kind = kinds[0]
        infos = [i for i in pc.unique(rows.column("value_type_info").combine_chunks()).to_pylist() if i]
        info = infos[0] if len(infos) == 1 else None
        low = stat_values(rows.column("min_value"), info)
        high = stat_values(rows.column("max_value"), info)
        if kind is None:
            # A version-1 index: values carry their logical wrapper but no type; a number for a
            # temporal column may be days or micros, so it is not compared.
            if pa.types.is_temporal(target) and not pa.types.is_temporal(low.type):
                return None
            return low, high
        stored = _TEMPORAL.get(kind)
        if stored is None:
            return low, high
        if not (pa.types.is_integer(low.type) and pa.types.is_integer(high.type)):
            return None
        low, high = low.cast(stored), high.cast(stored)
        if pa.types.is_timestamp(target) and pa.types.is_timestamp(stored) and target.unit == stored.unit:
            # The instant is the same whatever zone the read type names.
            return low.cast(target), high.cast(target)
        return low, high


def _dense_union(arrays: list[pa.Array]) -> pa.UnionArray:
    """One dense union over ``arrays`` in order, one child per distinct type."""
    types: list[pa.DataType] = []
    for array in arrays:
        if array.type not in types:
            types.append(array.type)
    children: list[list[pa.Array]] = [[] for _ in types]
    codes: list[np.ndarray] = []
    offsets: list[np.ndarray] = []
    for array in arrays:
        code = types.index(array.type)
        start = sum(len(a) for a in children[code])
        children[code].append(array)
        codes.append(np.full(len(array), code, dtype=np.int8))
        offsets.append(np.arange(start, start + len(array), dtype=np.int32))
    merged = [pa.concat_arrays(c) if c else pa.array([], t) for c, t in zip(children, types, strict=True)]
    return pa.UnionArray.from_dense(pa.array(np.concatenate(codes)), pa.array(np.concatenate(offsets)), merged)
