"""``AlignedPair``: an older and a newer table of the same keys, unified for vectorised merging.

Mergers that *select* one version per row (both built-ins) only need :meth:`AlignedPair.ordering` and
:meth:`AlignedPair.choose`; the pair takes care of schema evolution (one unified schema, missing
columns null), the flag columns and the OR of supersedes-older flags.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from hudi_framework.contracts.arrays import indices as positions
from hudi_framework.contracts.merging.flags import delete_mask, set_bool_column, supersedes_mask
from hudi_framework.contracts.merging.ordering import BoolMask, newer_wins
from hudi_framework.errors import MergeError

if TYPE_CHECKING:
    from hudi_framework.contracts.merge_context import MergeContext

__all__ = ["AlignedPair", "decode_dictionaries", "unify_tables"]


def unify_tables(tables: Sequence[pa.Table]) -> pa.Table:
    """Concatenate tables whose schemas may differ (zero-copy when they are equal).

    Columns are unified like Arrow's ``promote_options="permissive"``: the first table's columns
    first, then new ones; a column missing from a table is null there; numeric types widen.

    Args:
        tables: At least one table.

    Raises:
        MergeError: Two tables have a column whose types cannot be unified.
    """
    first = tables[0]
    if all(t.schema.equals(first.schema) for t in tables[1:]):
        return pa.concat_tables(tables)
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise MergeError(f"cannot unify the schemas of the rows being merged: {e}") from e


def decode_dictionaries(rows: pa.Table) -> pa.Table:
    """``rows`` with dictionary columns decoded to their values (mergers are given plain columns)."""
    for index, field in enumerate(rows.schema):
        if pa.types.is_dictionary(field.type):
            plain = field.type.value_type
            rows = rows.set_column(index, field.with_type(plain), rows.column(index).cast(plain))
    return rows


@dataclass(frozen=True, slots=True)
class AlignedPair:
    """Older rows followed by newer rows in one table, with both flag columns set.

    Attributes:
        rows: ``size`` older rows, then ``size`` newer rows, one unified schema.
        size: Rows per side.
        older_supersedes: Supersedes-older flag of each older row.
        newer_supersedes: Supersedes-older flag of each newer row.
    """

    rows: pa.Table
    size: int
    older_supersedes: BoolMask
    newer_supersedes: BoolMask

    @classmethod
    def of(cls, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> AlignedPair:
        """Unify ``older`` and ``newer`` and compute their flags.

        Args:
            older: The earlier versions.
            newer: The later versions, row ``i`` the same key as ``older`` row ``i``.
            ctx: The merge context.

        Raises:
            MergeError: The sides differ in length, or their schemas cannot be unified.
        """
        if older.num_rows != newer.num_rows:
            raise MergeError(f"aligned merge needs equal lengths: {older.num_rows} older, {newer.num_rows} newer rows")
        rows = unify_tables([older, newer])
        deletes = delete_mask(rows, ctx)
        supersedes = supersedes_mask(rows, ctx, deletes)
        rows = set_bool_column(rows, ctx.is_deleted_field, deletes)
        rows = set_bool_column(rows, ctx.supersedes_older_field, supersedes)
        size = older.num_rows
        return cls(rows, size, supersedes[:size], supersedes[size:])

    @property
    def older(self) -> pa.Table:
        """The older rows (unified schema, flags set)."""
        return self.rows.slice(0, self.size)

    @property
    def newer(self) -> pa.Table:
        """The newer rows (unified schema, flags set)."""
        return self.rows.slice(self.size)

    def ordering(self, ctx: MergeContext) -> tuple[list[pa.ChunkedArray], list[pa.ChunkedArray]]:
        """The ordering columns of each side; an absent field reads as all null.

        Args:
            ctx: The merge context naming the ordering fields.

        Returns:
            ``(older_columns, newer_columns)``, one entry per ordering field, of equal types.
        """
        older: list[pa.ChunkedArray] = []
        newer: list[pa.ChunkedArray] = []
        for field in ctx.ordering_fields:
            if field in self.rows.column_names:
                column = self.rows.column(field)
                older.append(column.slice(0, self.size))
                newer.append(column.slice(self.size))
            else:
                nulls = pa.chunked_array([pa.nulls(self.size)])
                older.append(nulls)
                newer.append(nulls)
        return older, newer

    def newer_wins(self, ctx: MergeContext) -> BoolMask:
        """Rows whose newer ordering value is >= the older one (see :func:`~.ordering.newer_wins`).

        Args:
            ctx: The merge context naming the ordering fields.
        """
        older, newer = self.ordering(ctx)
        return newer_wins(older, newer, ctx.ordering_fields, num_rows=self.size)

    def choose(self, take_newer: BoolMask | None, ctx: MergeContext) -> pa.Table:
        """Pick one side per row; the supersedes-older flag becomes the OR of both sides.

        Args:
            take_newer: Per row, True to keep the newer version; ``None`` keeps every newer version.
            ctx: The merge context.

        Returns:
            ``size`` rows aligned with the inputs, flags set.
        """
        if take_newer is None:
            chosen = self.newer
        else:
            indices = np.arange(self.size, dtype=np.int64) + take_newer.astype(np.int64) * self.size
            chosen = self.rows.take(positions(indices))
        return set_bool_column(chosen, ctx.supersedes_older_field, self.older_supersedes | self.newer_supersedes)
