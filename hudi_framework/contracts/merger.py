"""The record merger contract, mirroring Apache Hudi's ``HoodieRecordMerger`` (hudi-format.md section 6).

A merger decides what one record key looks like after several versions of it were written. The
kernel runs the *same* merger in four places, so a table reads the same whoever merged it:

* pre-combine of an incoming batch (:meth:`RecordMerger.combine`);
* copy-on-write: incoming records merged with a base file's rows (:func:`hudi_framework.merge.merge_with_base`);
* merge-on-read snapshot reads: base file, then log records in commit order;
* compaction, which is the snapshot read written back as a base file.

Mergers work on Arrow tables, never on one record at a time, unless they subclass
:class:`PerRecordMerger`, whose per-record ``merge_record`` the kernel adapts to the batch API.

Vocabulary used by every docstring below:

* **delete**: a row whose ``_hoodie_is_deleted`` column is true (or whose ``_hoodie_operation`` is
  ``D``, the Flink/CDC spelling). Deletes travel through merging as rows so that they can remove
  older versions; callers drop them at the end.
* **ordering value**: the tuple of the row's ``ordering_fields`` values. A row whose ordering
  fields are all null (or absent) has *no ordering value*.
* **commit-time delete**: a delete with no ordering value, as written by SQL ``DELETE`` and by
  merge-on-read delete blocks (whose ``orderingVal`` is Java's default ``IntWrapper(0)``). It
  removes every older version of its key, whatever their ordering values.
* **supersedes-older flag**: the boolean :data:`SUPERSEDES_OLDER_FIELD` column. It is true for a
  commit-time delete and for every merge result that has one in its history; such a row replaces
  every *older* version of its key. Carrying it is what keeps merging associative: without it,
  pre-combining ``[DELETE k, INSERT k(ts=1)]`` to ``INSERT k(ts=1)`` would lose the delete, and the
  stored ``k(ts=5)`` would win under event-time ordering, unlike writing the two one by one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from hudi_framework.contracts.merge_context import (
    IS_DELETED_FIELD,
    OPERATION_FIELD,
    PRESENT_COLUMNS_FIELD,
    RECORD_KEY_FIELD,
    SUPERSEDES_OLDER_FIELD,
    MergeContext,
    RecordRow,
)
from hudi_framework.contracts.merging.partial import fill_then_merge
from hudi_framework.contracts.merging.per_record import merge_per_record
from hudi_framework.contracts.merging.precombine import reduce_by_key

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pyarrow as pa

__all__ = [
    "IS_DELETED_FIELD",
    "OPERATION_FIELD",
    "PRESENT_COLUMNS_FIELD",
    "RECORD_KEY_FIELD",
    "SUPERSEDES_OLDER_FIELD",
    "MergeContext",
    "PerRecordMerger",
    "RecordMerger",
    "RecordRow",
]


class RecordMerger(ABC):
    """Merges versions of records that share a record key; Apache Hudi's ``HoodieRecordMerger``.

    Implementations must be:

    * **associative** on ordered inputs: ``merge(a, merge(b, c)) == merge(merge(a, b), c)`` when
      ``a`` is older than ``b`` and ``b`` older than ``c``, so that pre-combining, merge-on-read and
      compaction agree however the versions are grouped;
    * **deterministic**, and **picklable** (Spark ships them to executors);
    * **honest about deletes**: a newer commit-time delete always yields a delete.

    ``hudi_framework.testing.RecordMergerContract`` checks all of this; subclass it in your tests.
    """

    #: Apache Hudi's ``hoodie.record.merge.strategy.id`` this merger implements (a UUID string).
    #: Register it as an alias of your component so tables that persist it resolve to you.
    strategy_id: ClassVar[str] = ""

    @property
    def supports_vectorised(self) -> bool:
        """Whether :meth:`merge` works on whole columns (True) or loops over records in Python."""
        return True

    @abstractmethod
    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Merge two versions of the same keys, row by row.

        Pre-conditions: ``older`` and ``newer`` have the same length and, row ``i`` of each, the same
        record key; ``newer`` row ``i`` was written after ``older`` row ``i``. Either may hold deletes
        and either may carry the two flag columns (``ctx.flag_fields``) from an earlier merge. Their
        columns may differ (schema evolution); a missing column reads as null.

        Post-conditions: the result has ``len(older)`` rows, aligned with the inputs (same keys in
        the same order); its columns are those of ``older`` followed by any new ones of ``newer``
        and then the two flag columns, as non-null booleans. ``ctx.is_deleted_field`` says which
        merged rows are deletes; ``ctx.supersedes_older_field`` is the OR of the inputs' flags.
        The inputs are not modified.

        Args:
            older: The earlier versions (for example the stored rows of a base file).
            newer: The later versions (for example incoming rows, or later log records).
            ctx: The table's merge context.

        Returns:
            The merged rows, deletes included.
        """

    def select(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> npt.NDArray[np.bool_] | None:
        """Which version each pair keeps, for mergers whose result row is always one of its inputs.

        An optional shortcut the kernel tries before :meth:`merge` on full (not partial) rows. The
        inputs are aligned as for :meth:`merge` but hold only the record key, the ordering fields
        and the flag-related columns (is-deleted, operation, supersedes-older) that exist; the kernel
        then copies each kept row once instead of gathering both versions of every column first.

        If it returns a mask, :meth:`merge` on the full rows must give, row ``i``, the newer row where
        the mask is true and the older one where false (flag columns aside). The default returns
        None: the kernel calls :meth:`merge`. Override it only in mergers that select.

        Args:
            older: The earlier versions (narrow).
            newer: The later versions (narrow), aligned with ``older``.
            ctx: The table's merge context.

        Returns:
            One boolean per row (True: keep the newer version), or None.
        """
        return None

    def partial_merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Merge versions of which some are *partial* rows (Apache Hudi's ``partialMerge``).

        The kernel calls it instead of :meth:`merge` when either side holds partial rows: rows whose
        ``ctx.present_columns_field`` names the columns they carry (see
        :mod:`hudi_framework.contracts.merging.partial`); their other columns are placeholders. Same pre- and
        post-conditions as :meth:`merge`, plus: the result carries ``ctx.present_columns_field``,
        the columns each merged row carries (null for a full row).

        The default fills each live version's missing columns from the other version, then calls
        :meth:`merge` (commit time: the newer version's columns win; event time: the winner's
        columns win and the loser fills the rest; a delete fills nothing). Override it for other
        column-wise semantics.

        Args:
            older: The earlier versions.
            newer: The later versions, aligned with ``older``.
            ctx: The table's merge context.

        Returns:
            The merged rows, deletes included, with the presence column.
        """
        return fill_then_merge(self, older, newer, ctx)

    def mark_deletes(self, rows: pa.Table, ctx: MergeContext) -> pa.Table:
        """Mark rows that this merger's semantics call deletes (``ctx.is_deleted_field`` true).

        The kernel calls it on incoming rows before pre-combining and before merging them with stored
        rows, so that a merger may recognise deletes by its own marker (a CDC ``Op`` column, say). The
        default marks nothing and returns ``rows`` unchanged.

        Args:
            rows: Incoming rows.
            ctx: The table's merge context.

        Returns:
            The rows, with the is-deleted column set where needed.
        """
        return rows

    def combine(self, batch: pa.Table, ctx: MergeContext) -> pa.Table:
        """Pre-combine a batch: one row per record key (Apache Hudi's ``preCombine``/deduplication).

        Pre-conditions: rows are in arrival order, later rows are newer; keys are non-null.

        Post-conditions: one row per distinct key, in the order of each key's first appearance,
        equal to folding :meth:`merge` over the key's rows oldest first; deletes are kept (they must
        still remove stored versions), and the two flag columns are present as in :meth:`merge`.

        The default reduces duplicate keys pairwise with :meth:`merge`, in a logarithmic number of
        vectorised rounds; override it only with something provably equal.

        Args:
            batch: The incoming rows.
            ctx: The table's merge context.

        Returns:
            The combined rows.
        """
        return reduce_by_key(self, batch, ctx)


class PerRecordMerger(RecordMerger):
    """A merger written one record at a time; the kernel adapts it to the batch API.

    Subclass it for custom logic that is hard to vectorise (issue-6 payload classes, partial updates).
    It is slower than a vectorised merger by roughly the cost of ``pa.Table.to_pylist``.
    """

    @property
    def supports_vectorised(self) -> bool:
        """Always False: :meth:`merge` loops over records."""
        return False

    @abstractmethod
    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        """Merge two versions of one record.

        Both rows carry every column of the unified schema, including the two flag columns as
        booleans (so ``ctx.is_delete(row)`` and ``ctx.supersedes_older(row)`` are reliable).

        Args:
            older: The earlier version.
            newer: The later version of the same key.
            ctx: The table's merge context.

        Returns:
            The merged record (its key must be unchanged; missing columns become null; set
            ``ctx.is_deleted_field`` to mark a delete), or ``None`` to delete the key, which keeps
            ``newer``'s values, ordering value included, as the delete's.
        """

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Apply :meth:`merge_record` to each aligned pair; see :meth:`RecordMerger.merge`.

        Args:
            older: The earlier versions.
            newer: The later versions, aligned with ``older``.
            ctx: The table's merge context.

        Returns:
            The merged rows, deletes included.
        """
        return merge_per_record(self, older, newer, ctx)
