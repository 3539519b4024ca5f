"""Read options: query types, instant bounds, projection and filters, under Apache Hudi's option names.

The Spark data source receives options as a string map (keys lower-cased by Spark), Python callers pass
keywords; both end up in one validated :class:`ReadOptions`. Option names and meanings follow
``DataSourceReadOptions`` of Apache Hudi:

========================================================  ==============================================
``hoodie.datasource.query.type``                          ``snapshot`` (default), ``read_optimized``,
                                                          ``incremental``
``as.of.instant``                                         time travel: snapshot as of this instant
``hoodie.datasource.read.begin.instanttime``              incremental: exclusive lower bound
``hoodie.datasource.read.end.instanttime``                incremental: inclusive upper bound
``hoodie.datasource.read.incr.fallback.fulltablescan.enable``  incremental: full scan when files are gone
``hoodie.memory.merge.max.size``                          merge-on-read: log record bytes per file slice
                                                          held in memory before spilling
``hoodie.merge.use.record.positions``                     merge-on-read: merge log records by the base-file
                                                          positions their blocks carry (default false)
``hoodie.metadata.enable``                                plan from the metadata table's file listing
                                                          when it is usable (default true)
``hoodie.enable.data.skipping``                           skip files by column statistics (default true)
``data.skipping.source``                                  this project's: where the statistics come from,
                                                          ``metadata_table`` (default) or
                                                          ``parquet_footers``
========================================================  ==============================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hudi_framework.errors import InvalidConfigValueError

# Re-exported: the read planners resolve user-given bounds with it.
from hudi_framework.timeline.instant_time import EARLIEST as EARLIEST
from hudi_framework.timeline.instant_time import resolve_instant_time as resolve_instant_time
from hudi_framework.vocabulary import DataSkippingSource, QueryType

QUERY_TYPE_KEY: Final = "hoodie.datasource.query.type"
AS_OF_INSTANT_KEY: Final = "as.of.instant"
BEGIN_INSTANT_KEY: Final = "hoodie.datasource.read.begin.instanttime"
END_INSTANT_KEY: Final = "hoodie.datasource.read.end.instanttime"
INCR_FALLBACK_KEY: Final = "hoodie.datasource.read.incr.fallback.fulltablescan.enable"
MERGE_MAX_MEMORY_KEY: Final = "hoodie.memory.merge.max.size"
USE_RECORD_POSITIONS_KEY: Final = "hoodie.merge.use.record.positions"
METADATA_ENABLE_KEY: Final = "hoodie.metadata.enable"
DATA_SKIPPING_KEY: Final = "hoodie.enable.data.skipping"
DATA_SKIPPING_SOURCE_KEY: Final = "data.skipping.source"
#: Boolean options and the :class:`ReadOptions` fields they set.
_FLAGS: Final = {
    INCR_FALLBACK_KEY: "incremental_fallback_full_scan",
    USE_RECORD_POSITIONS_KEY: "use_record_positions",
    METADATA_ENABLE_KEY: "metadata_enable",
    DATA_SKIPPING_KEY: "data_skipping",
}


if TYPE_CHECKING:
    from hudi_framework.config.sections import ReadSettings

__all__ = [
    "DataSkippingSource",  # re-exported: the read options name it
    "ReadOptions",
    "as_columns",
    "parse_query_type",
    "parse_skipping_source",
    "resolve_instant_time",
]


class ReadOptions(BaseModel):
    """One read's options, validated.

    Instant values are kept as given when they are digit strings: Apache Hudi compares instant times
    as plain strings, so a 14-digit ``yyyyMMddHHmmss`` bound means the start of that second and
    ``000`` precedes every instant. Date
    strings (``yyyy-MM-dd``, ``yyyy-MM-dd HH:mm:ss[.SSS]``, ISO 8601) are turned into instant times
    by :func:`resolve_instant_time` when the table's time zone is known.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: ``hoodie.datasource.query.type``.
    query_type: QueryType = QueryType.SNAPSHOT
    #: ``as.of.instant``: time travel (snapshot and read-optimized queries only).
    as_of: str | None = None
    #: ``hoodie.datasource.read.begin.instanttime``: exclusive; None or ``earliest`` reads from the start.
    begin: str | None = None
    #: ``hoodie.datasource.read.end.instanttime``: inclusive; None reads to the latest commit.
    end: str | None = None
    #: Columns to return, in this order; None returns every column of the table schema.
    columns: tuple[str, ...] | None = None
    #: Predicates (see :mod:`hudi_framework.read.filters`); partition predicates also prune files.
    filters: tuple[Any, ...] | None = None
    #: ``hoodie.datasource.read.incr.fallback.fulltablescan.enable``; None takes Apache Hudi's default
    #: for the table version (true for v8+, false for v6).
    incremental_fallback_full_scan: bool | None = None
    #: ``hoodie.memory.merge.max.size``: merge-on-read log records of one file slice kept in memory
    #: before spilling to local disk; None takes the default (1 GiB).
    merge_max_memory_bytes: int | None = Field(default=None, gt=0)
    #: ``hoodie.merge.use.record.positions``: merge-on-read log records are paired with base rows by the
    #: positions their blocks carry (:mod:`hudi_framework.read.record_positions`); off, by key.
    use_record_positions: bool = False
    #: ``hoodie.metadata.enable``: take the file listing from the metadata table when it is usable
    #: (Apache Hudi 1.x readers default to true); false always lists storage.
    metadata_enable: bool = True
    #: ``hoodie.enable.data.skipping``: skip files whose column statistics exclude every row the
    #: filters match (Apache Hudi 1.x's default: on; it takes the statistics from the metadata table).
    data_skipping: bool = True
    #: ``data.skipping.source``: where file statistics come from (see :class:`DataSkippingSource`).
    data_skipping_source: DataSkippingSource = DataSkippingSource.METADATA_TABLE

    @field_validator("as_of", "begin", "end")
    @classmethod
    def _strip(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = value.strip()
        return text or None

    @classmethod
    def from_hoodie_options(cls, options: Mapping[str, str], **overrides: Any) -> ReadOptions:
        """Build from a string map under Apache Hudi's option names (case-insensitive keys).

        Unknown keys are ignored, as a Spark data source receives every option of the session
        (``path`` and the like). Keyword ``overrides`` (field names) win over the map.

        Raises:
            InvalidConfigValueError: An unknown query type or a non-boolean fallback flag.
        """
        lowered = {k.lower(): v for k, v in options.items()}
        values: dict[str, Any] = {}
        if QUERY_TYPE_KEY in lowered:
            values["query_type"] = parse_query_type(lowered[QUERY_TYPE_KEY])
        if AS_OF_INSTANT_KEY in lowered:
            values["as_of"] = lowered[AS_OF_INSTANT_KEY]
        if BEGIN_INSTANT_KEY in lowered:
            values["begin"] = lowered[BEGIN_INSTANT_KEY]
        if END_INSTANT_KEY in lowered:
            values["end"] = lowered[END_INSTANT_KEY]
        for key, field in _FLAGS.items():
            if key in lowered:
                flag = lowered[key].strip().lower()
                if flag not in ("true", "false"):
                    raise InvalidConfigValueError(key, "expected true or false")
                values[field] = flag == "true"
        if DATA_SKIPPING_SOURCE_KEY in lowered:
            values["data_skipping_source"] = parse_skipping_source(lowered[DATA_SKIPPING_SOURCE_KEY])
        if MERGE_MAX_MEMORY_KEY in lowered:
            size = lowered[MERGE_MAX_MEMORY_KEY].strip()
            if not size.isdigit() or int(size) <= 0:
                raise InvalidConfigValueError(MERGE_MAX_MEMORY_KEY, "expected a positive number of bytes")
            values["merge_max_memory_bytes"] = int(size)
        values.update(overrides)
        return cls(**values)

    @classmethod
    def from_settings(cls, settings: ReadSettings, **overrides: Any) -> ReadOptions:
        """Build from the ``[read]`` section of :class:`~hudi_framework.config.HudiSettings`."""
        values: dict[str, Any] = {
            "query_type": settings.query_type,
            "as_of": settings.as_of_instant,
            "begin": settings.begin_instant,
            "end": settings.end_instant,
            "use_record_positions": settings.use_record_positions,
            "data_skipping": settings.data_skipping,
            "data_skipping_source": settings.data_skipping_source,
        }
        values.update(overrides)
        return cls(**values)


def parse_query_type(value: str | QueryType) -> QueryType:
    """Parse a query type as Apache Hudi spells it (``read_optimized``; ``read-optimized`` also accepted).

    Raises:
        InvalidConfigValueError: Not a known query type.
    """
    if isinstance(value, QueryType):
        return value
    try:
        return QueryType(value)
    except ValueError:
        allowed = ", ".join(q.value for q in QueryType)
        raise InvalidConfigValueError(QUERY_TYPE_KEY, f"unknown query type {value!r} (expected {allowed})") from None


def parse_skipping_source(value: str | DataSkippingSource) -> DataSkippingSource:
    """Parse ``data.skipping.source``.

    Raises:
        InvalidConfigValueError: Not a known source.
    """
    try:
        return DataSkippingSource(str(value).strip())
    except ValueError:
        allowed = ", ".join(s.value for s in DataSkippingSource)
        raise InvalidConfigValueError(
            DATA_SKIPPING_SOURCE_KEY, f"unknown source {value!r} (expected {allowed})"
        ) from None


def as_columns(columns: Sequence[str] | str | None) -> tuple[str, ...] | None:
    """Normalise a projection argument (a single name is a one-column projection)."""
    if columns is None:
        return None
    if isinstance(columns, str):
        return (columns,)
    return tuple(columns)
