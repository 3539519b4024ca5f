"""Errors in the data a write brings: record keys, partition values, merging."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError
from hudi_framework.errors.table import PartitionPathError

__all__ = [
    "DataError",
    "DuplicateKeyError",
    "InvalidPartitionValueError",
    "InvalidRecordKeyError",
    "KeyFieldError",
    "MergeError",
    "NestedPartitionError",
    "OrderingTypeError",
    "UnsafePartitionPathError",
]


class MergeError(HudiError):
    """Records could not be merged."""


class OrderingTypeError(MergeError, TypeError):
    """An ordering field has a type whose values cannot be compared (struct, list, map...).

    Attributes:
        field: The ordering field.
        type_name: Its Arrow type, as text.
    """

    def __init__(self, field: str, type_name: str) -> None:
        self.field = field
        self.type_name = type_name
        super().__init__(f"ordering field {field!r} has type {type_name}, whose values cannot be compared")


class DataError(HudiError):
    """Records handed to a write break a rule of the table (record keys, partition values)."""


class InvalidRecordKeyError(DataError, ValueError):
    """Record keys are null or empty; raised before any file is written (Java ``HoodieKeyException``).

    A single-field key fails when the field is null or empty; a multi-field (complex) key fails only
    when every field of a row is null or empty.

    Attributes:
        fields: The record key fields.
        null_rows: Rows whose key is null (for several fields: every field null).
        empty_rows: Rows whose key is empty (for several fields: all null or empty, not all null).
        first_row: Index of the first failing row in the batch.
    """

    def __init__(self, fields: Sequence[str], *, null_rows: int, empty_rows: int, first_row: int) -> None:
        self.fields = tuple(fields)
        self.null_rows = null_rows
        self.empty_rows = empty_rows
        self.first_row = first_row
        if len(self.fields) == 1:
            what = f"record key field {self.fields[0]!r} is null in {null_rows} row(s) and empty in {empty_rows}"
        else:
            what = (
                f"record key fields {', '.join(map(repr, self.fields))} are all null or empty in "
                f"{null_rows + empty_rows} row(s) ({null_rows} all null)"
            )
        super().__init__(f"{what}; first at row {first_row}. Apache Hudi rejects null or empty record keys")


class DuplicateKeyError(DataError, ValueError):
    """An insert brings record keys the table already holds, under ``hoodie.datasource.insert.dup.policy=fail``
    (Java ``HoodieDuplicateKeyException``); raised before any file is written.

    Attributes:
        keys: Some of the keys (at most ten), sorted.
        count: How many distinct incoming keys the table holds.
    """

    def __init__(self, keys: Sequence[str], count: int) -> None:
        self.keys = tuple(keys)
        self.count = count
        shown = ", ".join(repr(k) for k in self.keys)
        super().__init__(
            f"the table already holds {count} incoming record key(s) ({shown}); "
            "hoodie.datasource.insert.dup.policy=fail rejects the insert"
        )


class KeyFieldError(DataError):
    """A record key or partition field is missing from the records, or has a type keys are not made from.

    Attributes:
        field: The field as configured (``a.b`` for a nested one).
        reason: What is wrong.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"key field {field!r}: {reason}")


class InvalidPartitionValueError(DataError, ValueError):
    """A partition value cannot be turned into a partition path (a date string no input format parses).

    Attributes:
        field: The partition field.
        value: The first offending value, as text.
        reason: Why it was rejected.
    """

    def __init__(self, field: str, value: str, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        super().__init__(f"partition field {field!r} value {value!r}: {reason}")


class UnsafePartitionPathError(InvalidPartitionValueError, PartitionPathError):
    """A partition ``value`` makes ``path`` (the field's part) with a ``segment`` no listing reads."""

    def __init__(self, field: str, value: str, path: str, segment: str, reason: str) -> None:
        self.field, self.value, self.path, self.segment, self.reason = field, value, path, segment, reason
        HudiError.__init__(  # both parents have an __init__ of their own
            self,
            f"partition field {field!r} value {value!r} makes the path {path!r}, whose segment {segment!r} is {reason}"
            ": no reader would return the rows. Use a table with hoodie.datasource.write.hive_style_partitioning=true"
            " and hoodie.datasource.write.partitionpath.urlencode=true, or change the value",
        )


class NestedPartitionError(DataError, PartitionPathError):
    """New partition ``path`` would nest in or hold partition ``other``; listings stop at the outer."""

    def __init__(self, path: str, other: str) -> None:
        self.other = other
        inner, outer = (path, other) if path.startswith(other + "/") else (other, path)
        why = "listings stop at the outer one. Values with '/' need hoodie.datasource.write.partitionpath.urlencode"
        super().__init__(path, f"partition {inner!r} would nest inside partition {outer!r}: {why}=true")
