"""Data skipping: which files (or row groups) cannot hold a row matching the read filters.

Statistics say, per unit (a file, or a row group of one) and column, the smallest and largest
non-null value, the number of nulls and the number of values (nulls included). A unit is skipped
only when *no* row in it can pass the filters; whenever the statistics leave a doubt, it is kept:

* a unit without statistics for a column, or with a missing (or NaN) minimum or maximum, may match
  any predicate on that column, unless its counts show the column is null in every row;
* floating point statistics leave NaN out, and NaN rows pass ``!=`` and ``not in``: those two never
  skip on floating point columns, nor does an ``in`` list holding NaN;
* statistics of an older type (a column promoted after the file was written) are widened to the
  read type only where widening keeps the order (integer -> wider integer or floating point, float
  -> double, decimal -> decimal, string <-> binary); other types keep the unit;
* strings compare as their UTF-8 bytes, as Parquet orders them and as the row filter does;
* ``OR`` keeps a unit when any branch may match, ``AND`` only when every predicate may.

Column statistics come in Apache Hudi's ``column_stats`` shape (``HoodieMetadataColumnStats``): one
row per (file, column) with the fields of :data:`COLUMN_STATS_SCHEMA_FIELDS`, from a
:class:`ColumnStatsSource`. Every step is a pyarrow compute over all units at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.read.filters import typed_array, typed_scalar

if TYPE_CHECKING:
    from hudi_framework.read.filters import Conjunction, Disjunction, Predicate

#: Partition path of the file a column-stats row describes (Apache Hudi keeps it in the record key).
PARTITION: Final = "partition"
FILE_NAME: Final = "fileName"
COLUMN_NAME: Final = "columnName"
MIN_VALUE: Final = "minValue"
MAX_VALUE: Final = "maxValue"
NULL_COUNT: Final = "nullCount"
VALUE_COUNT: Final = "valueCount"
TOTAL_SIZE: Final = "totalSize"
TOTAL_UNCOMPRESSED_SIZE: Final = "totalUncompressedSize"
IS_DELETED: Final = "isDeleted"
#: Column-stats fields, named as in Apache Hudi's ``HoodieMetadataColumnStats`` (plus ``partition``).
COLUMN_STATS_SCHEMA_FIELDS: Final = (
    PARTITION, FILE_NAME, COLUMN_NAME, MIN_VALUE, MAX_VALUE, NULL_COUNT, VALUE_COUNT, TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE, IS_DELETED,
)  # fmt: skip
#: The partition name Apache Hudi's metadata table gives the files of a non-partitioned table.
NON_PARTITIONED_NAME: Final = "."
#: ``in`` lists longer than this are checked as the range of their values (weaker, never wrong).
_MAX_IN_VALUES: Final = 256


class ColumnStatsSource(Protocol):
    """Where column statistics of data files come from (the metadata table's ``column_stats``, footers)."""

    @property
    def name(self) -> str:
        """Short name for plans and logs (``metadata_table``, ``parquet_footers``)."""
        ...

    def column_stats(self, files: Sequence[tuple[str, str]], columns: Sequence[str]) -> pa.Table | None:
        """Statistics of ``columns`` in ``files`` (``(partition path, file name)`` pairs), or None if unknown.

        Returns:
            One row per (file, column) known, with :data:`COLUMN_STATS_SCHEMA_FIELDS`. ``minValue`` and
            ``maxValue`` hold the column's values in any type the read type widens from, or a dense
            union of such types (Apache Hudi's union of value wrappers). Rows with ``isDeleted`` true are
            ignored. Files or columns without a row are kept by skipping.
        """
        ...


@runtime_checkable
class PartitionStatsSource(Protocol):
    """A statistics source that also knows whole partitions (the metadata table's ``partition_stats``)."""

    def partition_stats(self, partitions: Sequence[str], columns: Sequence[str]) -> pa.Table | None:
        """Statistics of ``columns`` over every row of each of ``partitions``, or None if unknown.

        Returns:
            One row per (partition, column) known, in the shape of
            :meth:`ColumnStatsSource.column_stats` with ``fileName`` holding the partition path.
            Partitions or columns without a row are kept.
        """
        ...


@dataclass(frozen=True, slots=True)
class ColumnRange:
    """One column's statistics, one entry per unit (null where unknown).

    Attributes:
        min: Smallest non-null value, in the read type.
        max: Largest non-null value, in the read type.
        null_count: Rows holding null.
        value_count: Rows (nulls included).
    """

    min: pa.Array
    max: pa.Array
    null_count: pa.Array
    value_count: pa.Array

    @classmethod
    def unknown(cls, typ: pa.DataType, count: int) -> ColumnRange:
        """A column nothing is known about."""
        return cls(pa.nulls(count, typ), pa.nulls(count, typ), pa.nulls(count, pa.int64()), pa.nulls(count, pa.int64()))


def may_match(filters: Disjunction, ranges: Mapping[str, ColumnRange], schema: pa.Schema, count: int) -> np.ndarray:
    """Per unit, whether a row of it may pass ``filters`` (False only where none can).

    Args:
        filters: Normalised filters (their values are converted to the columns' read types).
        ranges: Statistics per filtered column; a column absent here is unknown for every unit.
        schema: Read-schema types of the filtered columns.
        count: Number of units.

    Raises:
        InvalidFilterError: A filter value does not convert to its column's type.
    """
    if not filters:
        return np.ones(count, dtype=bool)
    result = np.zeros(count, dtype=bool)
    for conj in filters:
        result |= _conjunction(conj, ranges, schema, count)
    return result


def _conjunction(conj: Conjunction, ranges: Mapping[str, ColumnRange], schema: pa.Schema, count: int) -> np.ndarray:
    result = np.ones(count, dtype=bool)
    for pred in conj:
        index = schema.get_field_index(pred[0])
        known = ranges.get(pred[0])
        if index < 0 or known is None:
            continue
        result &= _predicate(pred, known, schema.field(index).type)
    return result


def _predicate(pred: Predicate, stats: ColumnRange, typ: pa.DataType) -> np.ndarray:
    """Whether the predicate may hold for a row of each unit."""
    op = pred[1]
    nulls, values = stats.null_count, stats.value_count
    if op == "is null":
        return _flags(pc.greater(nulls, 0), default=True)
    if op == "is not null":
        return _flags(pc.less(nulls, values), default=True)
    floating = pa.types.is_floating(typ)
    lo, hi = stats.min, stats.max
    if floating:
        # Old writers put NaN into statistics; such a bound says nothing.
        lo = pc.if_else(pc.is_nan(lo), pa.scalar(None, typ), lo)
        hi = pc.if_else(pc.is_nan(hi), pa.scalar(None, typ), hi)
    condition = _flags(_range_condition(pred, lo, hi, typ, floating=floating), default=True)
    # Every row null: no comparison holds (null compares as unknown, which filters out).
    if nulls.null_count or values.null_count:
        all_null = _flags(pc.greater_equal(nulls, values), default=False)
    else:
        all_null = np.asarray(nulls.to_numpy() >= values.to_numpy(), dtype=bool)
    return np.asarray(condition & ~all_null, dtype=bool)


def _flags(mask: pa.Array, *, default: bool) -> np.ndarray:
    """A boolean mask as numpy, unknown entries set to ``default``."""
    if mask.null_count:
        mask = pc.fill_null(mask, default)
    return np.asarray(mask.to_numpy(zero_copy_only=False), dtype=bool)


def _range_condition(pred: Predicate, lo: pa.Array, hi: pa.Array, typ: pa.DataType, *, floating: bool) -> pa.Array:
    """Whether some value in ``[lo, hi]`` passes the predicate (null where a bound is unknown)."""
    _, op, value = pred
    true = pa.array(np.ones(len(lo), dtype=bool))
    if op in ("=", "=="):
        v = typed_scalar(pred, value, typ)
        return pc.and_kleene(pc.less_equal(lo, v), pc.greater_equal(hi, v))
    if op == "!=":
        if floating:
            return true  # NaN rows pass != and are not in the statistics
        v = typed_scalar(pred, value, typ)
        return pc.invert(pc.and_kleene(pc.equal(lo, v), pc.equal(hi, v)))
    if op == "<":
        return pc.less(lo, typed_scalar(pred, value, typ))
    if op == "<=":
        return pc.less_equal(lo, typed_scalar(pred, value, typ))
    if op == ">":
        return pc.greater(hi, typed_scalar(pred, value, typ))
    if op == ">=":
        return pc.greater_equal(hi, typed_scalar(pred, value, typ))
    if op == "in":
        return _in_condition(pred, lo, hi, typ, floating=floating)
    if op == "not in":
        if floating:
            return true
        members = typed_array(pred, value, typ)
        single = pc.and_kleene(pc.equal(lo, hi), pc.is_in(lo, value_set=members))
        return pc.invert(single)
    if op == "starts with":
        return _prefix_condition(str(value), lo, hi, typ)
    return true


def _in_condition(pred: Predicate, lo: pa.Array, hi: pa.Array, typ: pa.DataType, *, floating: bool) -> pa.Array:
    members = typed_array(pred, pred[2], typ)
    if members.null_count:
        # pyarrow's is_in lets a null row match a null member: units holding nulls may match.
        return pa.array(np.ones(len(lo), dtype=bool))
    if floating and len(members) and pc.any(pc.is_nan(members)).as_py():
        return pa.array(np.ones(len(lo), dtype=bool))
    if not len(members):
        return pa.array(np.zeros(len(lo), dtype=bool))
    if len(members) > _MAX_IN_VALUES:
        bounds = pc.min_max(members)
        return pc.and_kleene(pc.less_equal(lo, bounds["max"]), pc.greater_equal(hi, bounds["min"]))
    result: pa.Array | None = None
    for member in members:
        hit = pc.and_kleene(pc.less_equal(lo, member), pc.greater_equal(hi, member))
        result = hit if result is None else pc.or_kleene(result, hit)
    assert result is not None
    return result


def _prefix_condition(prefix: str, lo: pa.Array, hi: pa.Array, typ: pa.DataType) -> pa.Array:
    """A string starting with ``prefix`` lies in ``[lo, hi]``: ``hi >= prefix`` and ``lo``'s first
    bytes are not past it (UTF-8 bytes order strings as code points do)."""
    if not (pa.types.is_string(typ) or pa.types.is_large_string(typ)):
        return pa.array(np.ones(len(lo), dtype=bool))
    raw = prefix.encode()
    binary = pa.large_binary()
    bound = pa.scalar(raw, binary)
    head = pc.binary_slice(lo.cast(binary), 0, len(raw))
    return pc.and_kleene(pc.greater_equal(hi.cast(binary), bound), pc.less_equal(head, bound))


def widen(values: pa.Array, typ: pa.DataType) -> pa.Array | None:
    """``values`` (statistics in a file's type) in the read type ``typ``, or None when the conversion
    may not keep their order (an int read as a string: ``10 < 9`` as text)."""
    source = values.type
    if source == typ:
        return values
    if not _order_preserving(source, typ):
        return None
    try:
        return values.cast(typ)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None


def _order_preserving(source: pa.DataType, target: pa.DataType) -> bool:
    t = pa.types
    if t.is_null(source):
        return True
    if t.is_integer(source):
        return bool((t.is_integer(target) and _int_fits(source, target)) or t.is_floating(target)
                    or t.is_decimal(target))  # fmt: skip
    if t.is_floating(source):
        return bool(t.is_floating(target) and target.bit_width >= source.bit_width)
    if t.is_decimal(source):
        return bool(t.is_decimal(target))
    textual = (t.is_string, t.is_large_string, t.is_binary, t.is_large_binary)
    if any(f(source) for f in textual):
        return any(f(target) for f in textual)
    same_family = (t.is_date, t.is_timestamp, t.is_time, t.is_boolean)
    return any(f(source) and f(target) for f in same_family)


def _int_fits(source: pa.DataType, target: pa.DataType) -> bool:
    signed_source = pa.types.is_signed_integer(source)
    signed_target = pa.types.is_signed_integer(target)
    if signed_source and not signed_target:
        return False
    if signed_target and not signed_source:
        return bool(target.bit_width > source.bit_width)
    return bool(target.bit_width >= source.bit_width)


def file_key(partition: str, file_name: str) -> str:
    """One string per data file (file names are unique, the partition guards against odd tables)."""
    return f"{partition}/{file_name}" if partition else file_name


def column_ranges(stats: pa.Table, files: Sequence[tuple[str, str]], schema: pa.Schema) -> dict[str, ColumnRange]:
    """Per filtered column of ``schema``, its statistics aligned to ``files``.

    Args:
        stats: Column statistics in Apache Hudi's ``column_stats`` shape.
        files: The units, as ``(partition path, file name)``.
        schema: Read-schema types of the columns wanted.
    """
    count = len(files)
    if IS_DELETED in stats.column_names:
        stats = stats.filter(pc.invert(pc.fill_null(stats.column(IS_DELETED), False)))
    names = stats.column(FILE_NAME)
    if PARTITION in stats.column_names:
        partitions = pc.fill_null(stats.column(PARTITION), "")
        # The metadata table names a non-partitioned table's partition "." (NON_PARTITIONED_NAME).
        root = pc.or_(pc.equal(partitions, ""), pc.equal(partitions, NON_PARTITIONED_NAME))
        keys = pc.if_else(root, names, pc.binary_join_element_wise(partitions, names, "/"))
    else:
        keys = names
    wanted = pa.array([file_key(p, f) for p, f in files], pa.string())
    units = pc.index_in(keys, value_set=wanted)
    column_names = stats.column(COLUMN_NAME)
    out: dict[str, ColumnRange] = {}
    for field in schema:
        rows = pc.fill_null(pc.and_(pc.equal(column_names, field.name), pc.is_valid(units)), False)
        picked = stats.filter(rows)
        if picked.num_rows:
            targets = units.filter(rows).to_numpy(zero_copy_only=False)
            out[field.name] = _aligned(picked, targets, field.type, count)
    return out


def _aligned(picked: pa.Table, targets: np.ndarray, typ: pa.DataType, count: int) -> ColumnRange:
    """Scatter one column's stats rows to their units; a unit described twice is unknown."""
    positions = np.full(count, -1, dtype=np.int64)
    positions[targets] = np.arange(len(targets))
    seen = np.bincount(targets, minlength=count)
    positions[seen > 1] = -1
    index = pa.array(positions, mask=positions < 0)
    lo = _values(picked.column(MIN_VALUE), typ)
    hi = _values(picked.column(MAX_VALUE), typ)
    if lo is None or hi is None:
        lo, hi = pa.nulls(len(targets), typ), pa.nulls(len(targets), typ)
    nulls = _counts(picked, NULL_COUNT)
    values = _counts(picked, VALUE_COUNT)
    return ColumnRange(lo.take(index), hi.take(index), nulls.take(index), values.take(index))


def _counts(table: pa.Table, name: str) -> pa.Array:
    if name not in table.column_names:
        return pa.nulls(table.num_rows, pa.int64())
    return table.column(name).combine_chunks().cast(pa.int64())


def _values(column: pa.ChunkedArray, typ: pa.DataType) -> pa.Array | None:
    """Min or max values in the read type; dense unions (one child per stored type) are resolved."""
    array = column.combine_chunks()
    if not isinstance(array, pa.UnionArray):
        return widen(array, typ)
    if array.type.mode != "dense":
        return None
    codes = array.type_codes.to_numpy(zero_copy_only=False)
    offsets = array.offsets.to_numpy(zero_copy_only=False)
    result = pa.nulls(len(array), typ)
    for child_index, code in enumerate(array.type.type_codes):
        rows = codes == code
        if not rows.any():
            continue
        child = widen(array.field(child_index), typ)
        if child is None:
            return None
        taken = child.take(pa.array(np.where(rows, offsets, 0)))
        result = pc.if_else(pa.array(rows), taken, result)
    return result
