"""``HudiMergeBuilder``: delta-spark's ``merge`` for a Hudi table, written as ONE upsert commit.

The source (aliased ``s``) is joined with the table's snapshot (aliased ``t``) on the merge
condition, in Spark. Each joined row takes the first clause whose condition holds (matched clauses
for rows with a target row, not-matched clauses for the others), as delta-spark does, and becomes
one output row: an update (the target row with the ``set`` values), a delete (the target row's key
flagged ``_hoodie_is_deleted``, which an upsert turns into a delete, as in Apache Hudi) or an insert.
Rows no clause takes are dropped. The output is upserted: updates, deletes and inserts land in one
commit. Record key and partition columns of matched rows keep the target's values.

Several source rows matching one target row that a matched clause would change is ambiguous and
fails with :class:`~hudi_framework.errors.MergeMatchError` before anything is written (delta-spark's
rule); the check is one extra Spark job over the joined rows, which are cached for the write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import Enum
from typing import TYPE_CHECKING, Final

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.errors import MergeMatchError, TableExpressionError
from hudi_framework.spark.table_expressions import (
    SOURCE_ALIAS,
    TARGET_ALIAS,
    Expression,
    checked_column,
    data_columns,
    protected_columns,
)
from hudi_framework.write.prepare import IS_DELETED

if TYPE_CHECKING:
    from hudi_framework.spark.table_api import HudiSparkTable
    from hudi_framework.write.pipeline import WriteResult

__all__ = ["HudiMergeBuilder"]

#: Internal columns of the joined rows (not user-visible; names no table is expected to use).
_MATCHED: Final = "__hudi_merge_matched"
_TARGET_KEY: Final = "__hudi_merge_target_key"
_TARGET_PARTITION: Final = "__hudi_merge_target_partition"
_CLAUSE: Final = "__hudi_merge_clause"
#: Target keys shown in a :class:`MergeMatchError` at most.
_SHOWN_KEYS: Final = 10


class _Kind(Enum):
    UPDATE = "update"
    DELETE = "delete"
    INSERT = "insert"


@dataclass(frozen=True)
class _Clause:
    kind: _Kind
    condition: Expression | None
    #: Column -> value; None: every column from the source (``*_all``).
    values: Mapping[str, Expression] | None = None

    @property
    def matched(self) -> bool:
        return self.kind is not _Kind.INSERT


@dataclass(frozen=True)
class HudiMergeBuilder:
    """Clauses of one merge; each ``when_*`` returns a new builder, ``execute()`` writes.

    Example::

        (table.merge(changes, "s.id = t.id")
            .when_matched_delete(condition="s.op = 'D'")
            .when_matched_update_all()
            .when_not_matched_insert_all(condition="s.op != 'D'")
            .execute())
    """

    table: HudiSparkTable
    source: DataFrame
    condition: Expression
    clauses: tuple[_Clause, ...] = ()

    def _with(self, clause: _Clause) -> HudiMergeBuilder:
        return replace(self, clauses=(*self.clauses, clause))

    def when_matched_update(
        self, set: Mapping[str, Expression], condition: Expression | None = None
    ) -> HudiMergeBuilder:
        """Update matched target rows: ``set`` maps columns to values (SQL over ``s`` and ``t``, or ``Column``)."""
        return self._with(_Clause(_Kind.UPDATE, condition, dict(set)))

    def when_matched_update_all(self, condition: Expression | None = None) -> HudiMergeBuilder:
        """Update matched target rows with the source row's columns (the source must have every column)."""
        return self._with(_Clause(_Kind.UPDATE, condition))

    def when_matched_delete(self, condition: Expression | None = None) -> HudiMergeBuilder:
        """Delete matched target rows."""
        return self._with(_Clause(_Kind.DELETE, condition))

    def when_not_matched_insert(
        self, values: Mapping[str, Expression], condition: Expression | None = None
    ) -> HudiMergeBuilder:
        """Insert unmatched source rows: ``values`` maps columns to values over ``s``; others are null."""
        return self._with(_Clause(_Kind.INSERT, condition, dict(values)))

    def when_not_matched_insert_all(self, condition: Expression | None = None) -> HudiMergeBuilder:
        """Insert unmatched source rows as they are (the source must have every column)."""
        return self._with(_Clause(_Kind.INSERT, condition))

    def rows(self) -> DataFrame:
        """The rows the merge upserts (deletes flagged ``_hoodie_is_deleted``), without writing them.

        Raises:
            TableExpressionError: A condition or value does not resolve, a column is unknown, a
                key or partition column is set, or an ``*_all`` clause's source lacks a column.
        """
        if not self.clauses:
            raise TableExpressionError("merge", "no clause: add when_matched_* or when_not_matched_* clauses")
        hudi = self.table.table
        columns = data_columns(hudi)
        protected = protected_columns(hudi)
        key_fields = hudi.config.record_key_fields
        target = self.table.to_df()
        key = F.col("_hoodie_record_key") if "_hoodie_record_key" in target.columns else F.concat_ws(",", *key_fields)
        partition = F.col("_hoodie_partition_path") if "_hoodie_partition_path" in target.columns else F.lit("")
        target = target.select(
            *columns, key.alias(_TARGET_KEY), partition.alias(_TARGET_PARTITION), F.lit(True).alias(_MATCHED)
        ).alias(TARGET_ALIAS)
        source = self.source.alias(SOURCE_ALIAS)
        how = "left" if any(not c.matched for c in self.clauses) else "inner"
        probe = source.join(target, F.lit(True), "inner").limit(0)  # resolves expressions without a cross join
        joined = source.join(target, checked_column(probe, self.condition, "merge condition"), how)
        matched = F.col(f"{TARGET_ALIAS}.{_MATCHED}").isNotNull()
        chosen: Column | None = None
        for index, clause in enumerate(self.clauses):
            when = matched if clause.matched else ~matched
            if clause.condition is not None:
                when = when & F.coalesce(
                    checked_column(probe, clause.condition, f"clause {index} condition"), F.lit(False)
                )
            chosen = F.when(when, F.lit(index)) if chosen is None else chosen.when(when, F.lit(index))
        assert chosen is not None
        types = dict(target.dtypes)
        outputs = [self._column(probe, name, types[name], name in protected) for name in columns if name != IS_DELETED]
        deleted = F.lit(False)
        for index, clause in enumerate(self.clauses):
            if clause.kind is _Kind.DELETE:
                deleted = F.when(F.col(_CLAUSE) == index, F.lit(True)).otherwise(deleted)
        staged = joined.select("*", chosen.alias(_CLAUSE)).filter(F.col(_CLAUSE).isNotNull())
        internal = (
            F.col(f"{TARGET_ALIAS}.{_TARGET_KEY}"),
            F.col(f"{TARGET_ALIAS}.{_TARGET_PARTITION}"),
            F.col(_CLAUSE),
        )
        return staged.select(*outputs, deleted.alias(IS_DELETED), *internal)

    def _column(self, probe: DataFrame, name: str, spark_type: str, protected: bool) -> Column:
        """The output value of ``name``: per clause, chosen by the clause column."""
        out: Column | None = None
        for index, clause in enumerate(self.clauses):
            value = self._value(probe, clause, index, name, protected)
            branch = F.col(_CLAUSE) == index
            out = F.when(branch, value) if out is None else out.when(branch, value)
        assert out is not None
        return out.cast(spark_type).alias(name)

    def _value(self, probe: DataFrame, clause: _Clause, index: int, name: str, protected: bool) -> Column:
        target = F.col(f"{TARGET_ALIAS}.`{name}`")
        source = F.col(f"{SOURCE_ALIAS}.`{name}`")
        if clause.kind is _Kind.DELETE or (clause.kind is _Kind.UPDATE and protected):
            if clause.values and name in clause.values:
                raise TableExpressionError(
                    name, "record key and partition columns cannot be set: delete the row and insert it anew"
                )
            return target
        if clause.values is None:
            if name not in self.source.columns:
                raise TableExpressionError(
                    name, f"clause {index} ({clause.kind.value} all) needs column {name!r} in the merge source"
                )
            return source
        for column in clause.values:
            if column not in data_columns(self.table.table):
                raise TableExpressionError(column, "not a column of the table")
        if name in clause.values:
            return checked_column(probe, clause.values[name], f"clause {index} value of {name!r}")
        return target if clause.kind is _Kind.UPDATE else F.lit(None)

    def execute(self) -> WriteResult:
        """Write the merge as one upsert commit.

        Raises:
            TableExpressionError: See :meth:`rows`.
            MergeMatchError: Several source rows match one target row a matched clause changes.
            InvalidRecordKeyError: A row to insert has a null or empty record key.
        """
        rows = self.rows().persist(StorageLevel.MEMORY_AND_DISK_DESER)
        try:
            if any(c.matched for c in self.clauses):
                _check_single_matches(rows, self.clauses)
            return self.table.write_merged(rows.drop(_TARGET_KEY, _TARGET_PARTITION, _CLAUSE))
        finally:
            rows.unpersist()


def _check_single_matches(rows: DataFrame, clauses: tuple[_Clause, ...]) -> None:
    """Raise :class:`MergeMatchError` when a target row is taken by a matched clause more than once."""
    matched = [i for i, c in enumerate(clauses) if c.matched]
    repeated = (
        rows.filter(F.col(_CLAUSE).isin(*matched))
        .groupBy(_TARGET_KEY, _TARGET_PARTITION)
        .count()
        .filter(F.col("count") > 1)
        .select(F.col(_TARGET_KEY).alias("key"))
    )
    shown = [str(r["key"]) for r in repeated.orderBy("key").limit(_SHOWN_KEYS).collect()]
    if shown:
        raise MergeMatchError(shown, repeated.count())
