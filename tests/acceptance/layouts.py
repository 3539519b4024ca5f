"""Key generator set-ups and, independently of the plugins, the keys and paths they must produce.

:class:`Layout` says how a scenario table is keyed and partitioned. Its ``record_key`` and
``partition_path`` re-derive Apache Hudi's strings in plain Python (``datetime.strftime``, a
hand-written Hive escape), so a key generator bug cannot hide behind a reader that shares it.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass
from typing import Any

from hudi_framework.table.table_config import TableConfig, new_table_config
from tests.acceptance.data import ORDERING_FIELD, PLAIN_REGIONS, SPECIAL_REGIONS, Row


class KeyGen(enum.StrEnum):
    """The key generators of the matrix."""

    SIMPLE = "simple"
    COMPLEX = "complex"
    NON_PARTITION = "non-partition"
    TIMESTAMP = "timestamp"
    CUSTOM = "custom"


class PartitionStyle(enum.StrEnum):
    """How partition values become path segments."""

    PLAIN = "plain"
    HIVE = "hive"
    URL_ENCODED = "url-encoded"  # with region values that need escaping
    HIVE_URL_ENCODED = "hive-url-encoded"


#: Java ``PartitionPathEncodeUtils.escapePathName`` escapes these (and control characters).
_HIVE_ESCAPED = frozenset("\"#%'*/:=?\\{[]^\x7f")
_TIMESTAMP_OPTIONS = {
    "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
    "hoodie.keygen.timebased.timezone": "UTC",
}


def _escape(value: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _HIVE_ESCAPED or ord(c) < 0x20 else c for c in value)


def _text(value: Any) -> str:
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


@dataclass(frozen=True)
class Layout:
    """Record key and partition fields of one scenario table.

    Attributes:
        keygen: The key generator.
        partitioned: Whether the table has partition fields.
        style: Partition path style (partitioned tables only).
    """

    keygen: KeyGen
    partitioned: bool
    style: PartitionStyle = PartitionStyle.PLAIN

    def __post_init__(self) -> None:
        if self.keygen is KeyGen.NON_PARTITION and self.partitioned:
            raise ValueError("the non-partition key generator has no partition fields")
        if self.keygen in (KeyGen.TIMESTAMP,) and not self.partitioned:
            raise ValueError("the timestamp key generator needs its partition field")

    @property
    def record_key_fields(self) -> tuple[str, ...]:
        """``hoodie.table.recordkey.fields``."""
        return ("id", "kind") if self.keygen is KeyGen.COMPLEX else ("id",)

    @property
    def partition_fields_raw(self) -> tuple[str, ...]:
        """``hoodie.table.partition.fields`` as persisted (custom entries typed)."""
        if not self.partitioned:
            return ()
        return {
            KeyGen.SIMPLE: ("region",),
            KeyGen.COMPLEX: ("region", "kind"),
            KeyGen.TIMESTAMP: ("ts",),
            KeyGen.CUSTOM: ("region:SIMPLE", "ts:TIMESTAMP"),
        }[self.keygen]

    @property
    def regions(self) -> tuple[str, ...]:
        """Region values of the generated rows."""
        escaped = self.style in (PartitionStyle.URL_ENCODED, PartitionStyle.HIVE_URL_ENCODED)
        return SPECIAL_REGIONS if escaped else PLAIN_REGIONS

    @property
    def write_options(self) -> dict[str, str]:
        """``hoodie.*`` options every writer of this layout passes.

        A version 6 table persists custom partition fields without their types (as Hudi 0.x), so
        writers give them, as Java writers must.
        """
        if self.keygen is KeyGen.CUSTOM and self.partitioned:
            return {"hoodie.datasource.write.partitionpath.field": ",".join(self.partition_fields_raw)}
        return {}

    def table_config(
        self, name: str, version: int, *, populate_meta_fields: bool = True, table_type: str = "COPY_ON_WRITE"
    ) -> TableConfig:
        """The config of a new table with this layout (``table_type``: ``COPY_ON_WRITE`` or ``MERGE_ON_READ``)."""
        needs_ts = self.keygen is KeyGen.TIMESTAMP or (self.keygen is KeyGen.CUSTOM and self.partitioned)
        return new_table_config(
            name,
            version=version,
            record_key_fields=self.record_key_fields,
            partition_fields=self.partition_fields_raw,
            ordering_fields=(ORDERING_FIELD,),
            key_generator_type=self.keygen.value.upper().replace("-", "_"),
            hive_style_partitioning=self.style in (PartitionStyle.HIVE, PartitionStyle.HIVE_URL_ENCODED),
            url_encode_partitions=self.style in (PartitionStyle.URL_ENCODED, PartitionStyle.HIVE_URL_ENCODED),
            populate_meta_fields=populate_meta_fields,
            table_type=table_type,
            extra=_TIMESTAMP_OPTIONS if needs_ts else None,
        )

    # ------------------------------------------------------------------ the truth, in plain Python
    def record_key(self, row: Row) -> str:
        """``_hoodie_record_key`` of a row."""
        fields = self.record_key_fields
        if len(fields) == 1:
            return _text(row[fields[0]])
        return ",".join(f"{f}:{_text(row[f])}" for f in fields)

    def partition_path(self, row: Row) -> str:
        """``_hoodie_partition_path`` of a row."""
        segments = []
        for raw in self.partition_fields_raw:
            name, _, kind = raw.partition(":")
            if name == "ts" and (kind == "TIMESTAMP" or self.keygen is KeyGen.TIMESTAMP):
                value = dt.datetime.fromtimestamp(row["ts"] / 1000, dt.UTC).strftime("%Y/%m/%d")
            else:
                value = _text(row[name])
            if self.style in (PartitionStyle.URL_ENCODED, PartitionStyle.HIVE_URL_ENCODED):
                value = _escape(value)
            if self.style in (PartitionStyle.HIVE, PartitionStyle.HIVE_URL_ENCODED):
                value = f"{name}={value}"
            segments.append(value)
        return "/".join(segments)
