"""Partition paths: each field's value as text, then the kernel's ``PartitionPathFormat``.

Java (``KeyGenUtils.getRecordPartitionPath`` and the timestamp key generator) renders each field,
turns a null or empty value into ``__HIVE_DEFAULT_PARTITION__``, escapes it when url-encoding, adds
``field=`` when hive-style and joins the fields with ``/``. Everything after rendering is the
kernel's vectorised :meth:`~hudi_framework.contracts.partition_path.PartitionPathFormat.encode_arrays`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.partition_path import PartitionPathFormat
from hudi_keygen_builtin.fields import Batch, field_column
from hudi_keygen_builtin.render import render_column

if TYPE_CHECKING:
    # Only timestamp partition fields need it; its Joda format tables cost ~15 ms to import.
    from hudi_keygen_builtin.timestamp import TimestampFormatter


@dataclass(frozen=True, slots=True)
class PartitionField:
    """One partition field; with a ``timestamp`` formatter its values are timestamps."""

    name: str
    timestamp: TimestampFormatter | None = None


class PartitionPaths:
    """Builds the ``_hoodie_partition_path`` column."""

    def __init__(
        self,
        fields: tuple[PartitionField, ...],
        *,
        hive_style: bool,
        url_encode: bool,
        consistent_logical_timestamp: bool,
    ) -> None:
        """Configure the builder; no fields means a non-partitioned table (every path is ``""``)."""
        self.fields = fields
        self._format = PartitionPathFormat(tuple(f.name for f in fields), hive_style, url_encode)
        self._consistent = consistent_logical_timestamp

    @property
    def names(self) -> tuple[str, ...]:
        """The partition field names."""
        return self._format.fields

    def paths(self, batch: Batch) -> pa.Array:
        """The partition path of every row.

        Raises:
            KeyFieldError: A field is missing or of an unsupported type.
            InvalidPartitionValueError: A timestamp value cannot be parsed or converted.
            UnsafePartitionPathError: A value would make a refused path segment (``.hoodie``...).
        """
        if not self.fields:
            return pc.fill_null(pa.nulls(batch.num_rows, pa.string()), "")
        return self._format.encode_arrays([self._values(f, batch) for f in self.fields])

    def _values(self, field: PartitionField, batch: Batch) -> pa.Array:
        column = field_column(batch, field.name)
        if field.timestamp is not None:
            return field.timestamp.format(column, field.name)
        return render_column(column, field.name, consistent_logical_timestamp=self._consistent)
