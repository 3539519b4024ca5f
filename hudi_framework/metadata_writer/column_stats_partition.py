"""The MDT ``column_stats`` partition: per (data file, indexed column) statistics (index version V2).

Records (type 3, key ``column id + partition id + file id``) hold ``HoodieMetadataColumnStats``:
min and max in the **physical** wrapper of their type (``IntWrapper`` days for a date,
``LongWrapper`` micros for a timestamp, ``BytesWrapper`` unscaled two's-complement for a decimal)
with ``valueType`` naming the logical type (Apache Hudi's ``ValueType`` ordinal, ``"precision,scale"``
for decimals), as Apache Hudi 1.1 writes for table version 9. Table version 8 gets index version V1,
as Apache Hudi 1.0 (and 1.1+ writing version 8) writes it: no ``valueType``, dates in ``DateWrapper``
(days), decimals in ``DecimalWrapper`` (unscaled at its scale 15), timestamps as the bare
``LongWrapper`` number of the column's unit. The version is the index definition's when it has one:


* init: every committed base and log file of the table;
* a commit: every file it wrote (a log file: over the records it holds, sizes 0, as the write path
  hands them over, else read back);
* a clean: a deletion mark (``isDeleted``) per deleted file and indexed column.

Columns: ``_hoodie_commit_time``, ``_hoodie_partition_path``, ``_hoodie_record_key`` (when the
table populates meta fields), then ``hoodie.metadata.index.column.stats.column.list`` or the first
``hoodie.metadata.index.column.stats.max.columns.to.index`` indexable columns of the table schema.
They are fixed when the partition is built and kept in ``.hoodie/.index_defs/index.json``, where
every later writer (ours or Apache Hudi's) takes them from.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

import pyarrow as pa

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.metadata.keys import column_id, column_stats_key, file_id, partition_id
from hudi_framework.metadata.log_file_stats import COLUMN_STATS_FACT, LogFileStats
from hudi_framework.metadata.records import MetadataPartition, RecordType
from hudi_framework.metadata.validate import committed_files
from hudi_framework.metadata_writer.file_column_stats import concat_stats, file_column_stats, indexable
from hudi_framework.metadata_writer.index_definitions import (
    index_definition,
    remove_index_definition,
    set_index_definition,
)
from hudi_framework.metadata_writer.partition_builder import (
    InitContext,
    InstantContext,
    MetadataRecord,
    PartitionBuilder,
    PartitionRecords,
)
from hudi_framework.model.schema import avro_to_arrow
from hudi_framework.read.skipping import (
    COLUMN_NAME,
    FILE_NAME,
    MAX_VALUE,
    MIN_VALUE,
    NULL_COUNT,
    PARTITION,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    VALUE_COUNT,
)
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.clean_metadata import CleanMetadata
from hudi_framework.timeline.instant import WRITE_ACTIONS
from hudi_framework.timeline.metadata import CommitMetadata
from hudi_framework.timeline.timeline import Timeline

__all__ = [
    "COLUMN_LIST_KEY",
    "COLUMN_STATS_ENABLE_KEY",
    "COLUMN_STATS_FILE_GROUPS_KEY",
    "INDEX_V1",
    "INDEX_V2",
    "MAX_COLUMNS_KEY",
    "ColumnStatsBuilder",
    "columns_to_index",
    "index_version",
    "stats_records",
]

COLUMN_STATS_ENABLE_KEY: Final = "hoodie.metadata.index.column.stats.enable"
COLUMN_LIST_KEY: Final = "hoodie.metadata.index.column.stats.column.list"
MAX_COLUMNS_KEY: Final = "hoodie.metadata.index.column.stats.max.columns.to.index"
COLUMN_STATS_FILE_GROUPS_KEY: Final = "hoodie.metadata.index.column.stats.file.group.count"
_DEFAULT_MAX_COLUMNS: Final = 32
_DEFAULT_FILE_GROUPS: Final = 2
#: The meta columns Apache Hudi indexes (sorted), when the table populates them.
_META_COLUMNS: Final = ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")
_NAMESPACE: Final = "org.apache.hudi.avro.model."
_STATS: Final = "ColumnStatsMetadata"
#: Shared with the ``partition_stats`` builder through :attr:`InstantContext.shared`.
SHARED_STATS: Final = "column_stats.file_stats"
#: Key in :attr:`InstantContext.shared` of the columns the index definitions give (per partition).
_DEFINED_COLUMNS: Final = "column_stats.defined_columns"

# Apache Hudi's ``ValueType`` ordinals.
_BOOLEAN, _INT, _LONG, _FLOAT, _DOUBLE, _STRING, _DECIMAL, _DATE = 2, 3, 4, 5, 6, 7, 10, 12
_TIMESTAMPS: Final = {("ms", True): 15, ("us", True): 16, ("ns", True): 17, ("ms", False): 18, ("us", False): 19}
_TIMESTAMPS_NS_LOCAL: Final = 20
#: Column-stats index versions: V2 (``valueType``, physical wrappers), V1 (logical wrappers).
INDEX_V1: Final = "V1"
INDEX_V2: Final = "V2"
#: ``DecimalWrapper`` holds decimal(30, 15): Apache Hudi rescales every decimal to it.
_V1_DECIMAL_SCALE: Final = 15


def columns_to_index(
    schema: pa.Schema, *, populate_meta_fields: bool, column_list: Sequence[str] | None, max_columns: int
) -> list[str]:
    """The columns Apache Hudi's writer indexes for a table schema (``getColumnsToIndex``)."""
    meta = list(_META_COLUMNS) if populate_meta_fields else []
    data = [f for f in schema if f.name not in _META_COLUMNS and not f.name.startswith("_hoodie_")]
    if column_list:
        names = {f.name for f in data}
        return meta + [c for c in column_list if c in names and c not in meta]
    return meta + [f.name for f in data if indexable(f.type)][:max_columns]


def _wrapping(
    typ: pa.DataType, version: str = INDEX_V2
) -> tuple[str, int, str | None, Callable[[pa.Array], list[Any]]] | None:
    """(wrapper record, value type ordinal, its info, physical values of an array) of a type, in
    index ``version``'s layout (V1 writes no value type: the ordinal is then not used)."""
    if version == INDEX_V1:
        if pa.types.is_date32(typ):
            return "DateWrapper", _DATE, None, lambda a: a.cast(pa.int32()).to_pylist()
        if pa.types.is_decimal(typ):
            return (
                "DecimalWrapper",
                _DECIMAL,
                None,
                lambda a: [_unscaled(v, _V1_DECIMAL_SCALE) for v in a.to_pylist()],
            )
    if pa.types.is_boolean(typ):
        return "BooleanWrapper", _BOOLEAN, None, lambda a: a.to_pylist()
    if pa.types.is_integer(typ):
        if typ.bit_width < 32 or typ == pa.int32():
            return "IntWrapper", _INT, None, lambda a: a.cast(pa.int32()).to_pylist()
        return "LongWrapper", _LONG, None, lambda a: a.cast(pa.int64()).to_pylist()
    if pa.types.is_float32(typ):
        return "FloatWrapper", _FLOAT, None, lambda a: a.to_pylist()
    if pa.types.is_float64(typ):
        return "DoubleWrapper", _DOUBLE, None, lambda a: a.to_pylist()
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return "StringWrapper", _STRING, None, lambda a: a.to_pylist()
    if pa.types.is_date32(typ):
        return "IntWrapper", _DATE, None, lambda a: a.cast(pa.int32()).to_pylist()
    if pa.types.is_timestamp(typ) and typ.unit != "s":
        ordinal = _TIMESTAMPS.get((typ.unit, typ.tz is not None), _TIMESTAMPS_NS_LOCAL)
        return "LongWrapper", ordinal, None, lambda a: a.cast(pa.int64()).to_pylist()
    if pa.types.is_decimal(typ):
        scale = typ.scale
        return (
            "BytesWrapper",
            _DECIMAL,
            f"{typ.precision},{scale}",
            lambda a: [_unscaled(v, scale) for v in a.to_pylist()],
        )
    return None


def _unscaled(value: Decimal | None, scale: int) -> bytes | None:
    """Java ``BigInteger.toByteArray()`` of the unscaled value: minimal big-endian two's complement."""
    if value is None:
        return None
    unscaled = int(value.scaleb(scale))
    return unscaled.to_bytes(unscaled.bit_length() // 8 + 1, "big", signed=True)


def _wrapped(union: pa.UnionArray, version: str) -> tuple[list[Any], list[tuple[int, str | None] | None]]:
    """Per row: the wrapped value (``(full wrapper name, {"value": v})`` or None) and its value type."""
    per_child: list[tuple[list[Any], tuple[str, int, str | None] | None]] = []
    for i in range(union.type.num_fields):
        child = union.field(i)
        wrapping = _wrapping(child.type, version)
        per_child.append(([], None) if wrapping is None else (wrapping[3](child), wrapping[:3]))
    codes = union.type_codes.to_pylist()
    offsets = union.offsets.to_pylist()
    index = {code: i for i, code in enumerate(union.type.type_codes)}
    values: list[Any] = []
    kinds: list[tuple[int, str | None] | None] = []
    for code, offset in zip(codes, offsets, strict=True):
        physical, how = per_child[index[code]]
        if how is None:
            values.append(None)
            kinds.append(None)
            continue
        value = physical[offset]
        values.append(None if value is None else (_NAMESPACE + how[0], {"value": value}))
        kinds.append((how[1], how[2]))
    return values, kinds


def stats_records(
    stats: pa.Table, *, tight: bool = False, partition_level: bool = False, version: str = INDEX_V2
) -> list[MetadataRecord]:
    """``column_stats`` (or, ``partition_level``, ``partition_stats``) records of a stats table (the
    shape of :func:`~hudi_framework.metadata_writer.file_column_stats.file_column_stats`) in index
    ``version``'s layout; rows of a type with no wrapper are left out."""
    lows, kinds = _wrapped(stats.column(MIN_VALUE).combine_chunks(), version)
    highs, _ = _wrapped(stats.column(MAX_VALUE).combine_chunks(), version)
    columns = {name: stats.column(name).to_pylist() for name in (PARTITION, FILE_NAME, COLUMN_NAME)}
    counts = {
        name: stats.column(name).to_pylist() for name in (VALUE_COUNT, NULL_COUNT, TOTAL_SIZE, TOTAL_UNCOMPRESSED_SIZE)
    }
    records: list[MetadataRecord] = []
    # The key's parts hash a column, a partition and a file name (xxh64 in Python): once each.
    column_ids: dict[str, str] = {}
    partition_ids: dict[str, str] = {}
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        partition, name, column = columns[PARTITION][i], columns[FILE_NAME][i], columns[COLUMN_NAME][i]
        head = column_ids.get(column) or column_ids.setdefault(column, column_id(column))
        head += partition_ids.get(partition) or partition_ids.setdefault(partition, partition_id(partition))
        if partition_level:
            key, file_name, record_type = head, partition, RecordType.PARTITION_STATS
        else:
            key, file_name, record_type = head + file_id(name), name, RecordType.COLUMN_STATS
        records.append(
            {
                "key": key,
                "type": int(record_type),
                _STATS: {
                    "fileName": file_name,
                    "columnName": column,
                    "minValue": lows[i],
                    "maxValue": highs[i],
                    "valueCount": counts[VALUE_COUNT][i],
                    "nullCount": counts[NULL_COUNT][i],
                    "totalSize": counts[TOTAL_SIZE][i],
                    "totalUncompressedSize": counts[TOTAL_UNCOMPRESSED_SIZE][i],
                    "isDeleted": False,
                    "isTightBound": tight,
                    "valueType": {"typeOrdinal": kind[0], "additionalInfo": kind[1]} if version == INDEX_V2 else None,
                },
            }
        )
    return records


def deleted_record(key: str, file_name: str, column: str, record_type: RecordType) -> MetadataRecord:
    """A deletion mark (Java's stub: no bounds, counts -1)."""
    return {
        "key": key,
        "type": int(record_type),
        _STATS: {
            "fileName": file_name,
            "columnName": column,
            "minValue": None,
            "maxValue": None,
            "valueCount": -1,
            "nullCount": -1,
            "totalSize": -1,
            "totalUncompressedSize": -1,
            "isDeleted": True,
            "isTightBound": False,
            "valueType": None,
        },
    }


def latest_schema(timeline: Timeline, config: TableConfig, earlier: object = None) -> pa.Schema | None:
    """The table's newest write schema (commit metadata), else its create schema, else None.
    ``earlier``: an earlier snapshot of the timeline (the write's): a commit on both is read from it,
    which has read it already."""
    known = set(earlier.instants) if isinstance(earlier, Timeline) else set()
    for inst in reversed(timeline.commits_timeline()):
        if inst.action in WRITE_ACTIONS:
            source = earlier if isinstance(earlier, Timeline) and inst in known else timeline
            text = (source.read_commit_metadata(inst).extra_metadata or {}).get("schema")
            if text:
                return avro_to_arrow(json.loads(text))
    return avro_to_arrow(json.loads(config.create_schema)) if config.create_schema else None


class ColumnStatsBuilder(PartitionBuilder):
    """Builds ``column_stats`` (``hoodie.metadata.index.column.stats.file.group.count`` file groups)."""

    partition = MetadataPartition.COLUMN_STATS.value

    def applies_to(self, config: TableConfig) -> bool:
        return config.version >= 8

    def file_group_count(self, ctx: InitContext) -> int:
        return ctx.options.integer(COLUMN_STATS_FILE_GROUPS_KEY, _DEFAULT_FILE_GROUPS)

    def init_columns(self, ctx: InitContext) -> list[str] | None:
        """The columns to index from the options and the table schema; None when neither names any."""
        listed = ctx.options.text(COLUMN_LIST_KEY)
        explicit = [c.strip() for c in listed.split(",") if c.strip()] if listed else None
        schema = latest_schema(ctx.timeline, ctx.config)
        if schema is None:
            meta = list(_META_COLUMNS) if ctx.config.populate_meta_fields else []
            return meta + [c for c in explicit if c not in meta] if explicit else None
        return columns_to_index(
            schema,
            populate_meta_fields=ctx.config.populate_meta_fields,
            column_list=explicit,
            max_columns=ctx.options.integer(MAX_COLUMNS_KEY, _DEFAULT_MAX_COLUMNS),
        )

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        columns = self.init_columns(ctx)
        if columns is None:
            return PartitionRecords()
        files = [tuple(k.rsplit("/", 1)) if "/" in k else ("", k) for k in committed_files(ctx.view)]
        stats = file_column_stats(ctx.storage, [(p, n) for p, n in files], columns)
        version = index_version(ctx.storage, ctx.config)
        return PartitionRecords(stats_records(stats, version=version) if stats is not None else [])

    def after_init(self, ctx: InitContext) -> None:
        columns = self.init_columns(ctx)
        if columns is not None:
            _define(ctx.storage, columns, index_version(ctx.storage, ctx.config))

    def after_drop(self, storage: StorageBackend) -> None:
        remove_index_definition(storage, self.partition)

    def columns(self, ctx: InstantContext, metadata: CommitMetadata | None) -> list[str]:
        """The indexed columns: the index definition's, else (a table that had no schema when the
        partition was built) the defaults over this commit's schema, then recorded."""
        return self.columns_and_version(ctx, metadata)[0]

    def columns_and_version(self, ctx: InstantContext, metadata: CommitMetadata | None) -> tuple[list[str], str]:
        """:meth:`columns` and the index version records are written in (one read of the definition)."""
        # column_stats and partition_stats both ask: the index definitions are read once per instant.
        memo = f"{_DEFINED_COLUMNS}.{self.partition}"
        if memo not in ctx.shared:
            ctx.shared[memo] = index_definition(ctx.storage, self.partition, ctx.properties)
        memoised = ctx.shared[memo]
        defined = memoised if isinstance(memoised, Mapping) else None
        version = _version(defined, ctx.config)
        fields = [str(f) for f in defined.get("sourceFields") or ()] if defined is not None else []
        if fields:
            return fields, version
        text = (metadata.extra_metadata or {}).get("schema") if metadata is not None else None
        if not text:
            return [], version
        columns = columns_to_index(
            avro_to_arrow(json.loads(text)),
            populate_meta_fields=ctx.config.populate_meta_fields,
            column_list=None,
            max_columns=_DEFAULT_MAX_COLUMNS,
        )
        _define(ctx.storage, columns, version)
        ctx.shared[memo] = {"sourceFields": columns, "version": version}
        return columns, version

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        files = sorted(
            {
                (partition or "", stat.path.rsplit("/", 1)[-1])
                for partition, stats in (metadata.partition_to_write_stats or {}).items()
                for stat in stats
                if stat.path
            }
        )
        if not files:
            return PartitionRecords()
        columns, version = self.columns_and_version(ctx, metadata)
        stats = _written_stats(ctx, metadata, files, columns)
        if stats is None:
            return PartitionRecords()
        ctx.shared[SHARED_STATS] = stats
        return PartitionRecords(stats_records(stats, version=version))

    def clean_records(self, ctx: InstantContext, clean: CleanMetadata) -> PartitionRecords:
        columns = self.columns(ctx, None)
        return PartitionRecords(
            [
                deleted_record(column_stats_key(c, p, n), n, c, RecordType.COLUMN_STATS)
                for p, outcome in sorted(clean.partitions.items())
                for n in outcome.success_delete_files
                for c in columns
            ]
        )

    def combine(self, older: MetadataRecord, newer: MetadataRecord) -> MetadataRecord:
        return newer

    def compacted(self, record: MetadataRecord) -> MetadataRecord | None:
        stats = record.get(_STATS) or {}
        return None if stats.get("isDeleted") else record


def _written_stats(
    ctx: InstantContext, metadata: CommitMetadata, files: Sequence[tuple[str, str]], columns: Sequence[str]
) -> pa.Table | None:
    """Statistics of ``columns`` in the files a commit wrote: a log file's from what the write path
    handed over (:mod:`~hudi_framework.metadata.log_file_stats`), every other file's read."""
    handed = ctx.facts.get(COLUMN_STATS_FACT)
    known: LogFileStats = handed if isinstance(handed, Mapping) else {}
    paths = {
        (partition or "", stat.path.rsplit("/", 1)[-1]): stat.path
        for partition, stats in (metadata.partition_to_write_stats or {}).items()
        for stat in stats
        if stat.path
    }
    taken = [known[paths[f]] for f in files if paths.get(f) in known]
    rest = [f for f in files if paths.get(f) not in known]
    parts = [t for t in (file_column_stats(ctx.storage, rest, columns) if rest else None,) if t is not None]
    for table in taken:
        if table is None:
            continue  # a log file without records: no statistics
        # The write path gave every indexable column: keep the indexed ones, in index order.
        names = table.column(COLUMN_NAME).to_pylist()
        order = [names.index(c) for c in columns if c in names]
        if order:
            parts.append(table.take(pa.array(order, pa.int64())))
    return concat_stats(parts) if parts else None


def index_version(storage: StorageBackend, config: TableConfig) -> str:
    """The column-stats index version to write: the index definition's, else the table version's
    (V2 from table version 9 on, V1 before, as Apache Hudi picks)."""
    return _version(index_definition(storage, MetadataPartition.COLUMN_STATS.value), config)


def _version(defined: Mapping[str, Any] | None, config: TableConfig) -> str:
    version = defined.get("version") if defined is not None else None
    if version in (INDEX_V1, INDEX_V2):
        return str(version)
    return INDEX_V2 if config.version >= 9 else INDEX_V1


def _define(storage: StorageBackend, columns: Sequence[str], version: str) -> None:
    set_index_definition(
        storage,
        MetadataPartition.COLUMN_STATS.value,
        index_type="column_stats",
        index_function="column_stats",
        fields=columns,
        version=version,
    )
