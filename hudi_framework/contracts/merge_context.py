"""What a record merger is given besides the rows: the merge context and the column vocabulary.

The vocabulary (delete, ordering value, commit-time delete, supersedes-older flag) is explained in
:mod:`hudi_framework.contracts.merger`. This module also names the two shapes of merger the merge
toolkit (:mod:`hudi_framework.contracts.merging`) calls, so that the toolkit sits below the merger
contract whose default methods use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "IS_DELETED_FIELD",
    "OPERATION_FIELD",
    "PRESENT_COLUMNS_FIELD",
    "RECORD_KEY_FIELD",
    "SUPERSEDES_OLDER_FIELD",
    "BatchMerger",
    "MergeContext",
    "RecordRow",
    "RecordWiseMerger",
]

#: Apache Hudi's record key meta column.
RECORD_KEY_FIELD: Final = "_hoodie_record_key"
#: Apache Hudi's soft-delete data column (``HoodieRecord.HOODIE_IS_DELETED_FIELD``).
IS_DELETED_FIELD: Final = "_hoodie_is_deleted"
#: Apache Hudi's optional operation meta column (``I``, ``-U``, ``U``, ``D``); ``D`` marks a delete.
OPERATION_FIELD: Final = "_hoodie_operation"
#: Kernel bookkeeping column (never written to a file): see "supersedes-older flag" above.
SUPERSEDES_OLDER_FIELD: Final = "_hudi_fw_supersedes_older"
#: Kernel bookkeeping column (never written to a file): the columns a *partial* row carries, as
#: ``"|a|b|"``; null for a full row. A column a partial row lacks keeps the other version's value
#: (docs/mergers.md, "Partial updates").
PRESENT_COLUMNS_FIELD: Final = "_hudi_fw_present_columns"

#: One record as a Python mapping from column name to value (``pa.Table.to_pylist`` rows).
RecordRow = dict[str, Any]


@dataclass(frozen=True, slots=True)
class MergeContext:
    """Everything a merger needs to know about the table besides the rows themselves.

    New fields are only ever added with defaults, so mergers written today keep working.

    Attributes:
        ordering_fields: The table's ordering (pre-combine) fields, ``hoodie.table.ordering.fields``.
            Compared lexicographically; empty means "no ordering value", so event-time ordering
            degrades to commit-time ordering, as in Apache Hudi.
        record_key_field: The record key column.
        is_deleted_field: The soft-delete column; mergers output it as a non-null boolean.
        operation_field: The operation column whose value ``D`` also marks a delete (absent columns
            are ignored).
        supersedes_older_field: The supersedes-older bookkeeping column; inputs may set it to mark
            commit-time deletes explicitly, mergers output it as a non-null boolean.
        schema: The table (writer) schema, without the bookkeeping column. When set,
            :func:`~hudi_framework.merge.merge_with_base` returns rows of exactly this schema.
        partial_columns: Non-empty when the incoming rows of
            :func:`~hudi_framework.merge.merge_with_base` are partial updates carrying only these
            columns (their other columns are placeholders that keep the stored values).
        present_columns_field: The bookkeeping column that marks partial rows (see above).
    """

    ordering_fields: tuple[str, ...] = ()
    record_key_field: str = RECORD_KEY_FIELD
    is_deleted_field: str = IS_DELETED_FIELD
    operation_field: str = OPERATION_FIELD
    supersedes_older_field: str = SUPERSEDES_OLDER_FIELD
    schema: pa.Schema | None = None
    partial_columns: tuple[str, ...] = ()
    present_columns_field: str = PRESENT_COLUMNS_FIELD

    @property
    def flag_fields(self) -> tuple[str, str]:
        """The two boolean columns every merge result carries: is-deleted and supersedes-older."""
        return (self.is_deleted_field, self.supersedes_older_field)

    def ordering_value(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        """The ordering value of one record as a tuple (``None`` for null or absent fields).

        Args:
            row: A record as a mapping, e.g. a ``pa.Table.to_pylist`` row.
        """
        return tuple(row.get(f) for f in self.ordering_fields)

    def is_delete(self, row: Mapping[str, Any]) -> bool:
        """Whether one record is a delete (``_hoodie_is_deleted`` true or ``_hoodie_operation`` = ``D``).

        Args:
            row: A record as a mapping.
        """
        return row.get(self.is_deleted_field) is True or row.get(self.operation_field) == "D"

    def supersedes_older(self, row: Mapping[str, Any]) -> bool:
        """Whether one record replaces every older version of its key (see the module docstring).

        True when the flag column says so, or for a delete with no ordering value.

        Args:
            row: A record as a mapping.
        """
        if row.get(self.supersedes_older_field) is True:
            return True
        return self.is_delete(row) and all(v is None for v in self.ordering_value(row))


class BatchMerger(Protocol):
    """The batch methods of :class:`~hudi_framework.contracts.merger.RecordMerger` the toolkit calls."""

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """See :meth:`~hudi_framework.contracts.merger.RecordMerger.merge`."""
        ...

    def partial_merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """See :meth:`~hudi_framework.contracts.merger.RecordMerger.partial_merge`."""
        ...

    def mark_deletes(self, rows: pa.Table, ctx: MergeContext) -> pa.Table:
        """See :meth:`~hudi_framework.contracts.merger.RecordMerger.mark_deletes`."""
        ...


class RecordWiseMerger(Protocol):
    """The per-record method of :class:`~hudi_framework.contracts.merger.PerRecordMerger`."""

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        """See :meth:`~hudi_framework.contracts.merger.PerRecordMerger.merge_record`."""
        ...
