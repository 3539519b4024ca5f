"""The record merger contract suite: behaviour every :class:`RecordMerger` must show.

Plugin authors subclass :class:`RecordMergerContract` in a ``Test*`` class and provide a ``merger``
fixture (and, when their merger needs other ordering fields, a ``merge_context`` fixture)::

    class TestMaxVersion(RecordMergerContract):
        @pytest.fixture
        def merger(self) -> RecordMerger:
            return MaxVersionMerger(MaxVersionOptions(version_field="ts"))

Inputs are generated with hypothesis: a record key, an ordering field ``ts`` of one of several types
(integers, floats with NaN and infinities, strings, decimals, dates, timestamps; nulls included), a
``payload`` that identifies each version, ``_hoodie_is_deleted``, and a ``note`` column that is often
null (for mergers that fill missing columns). A delete whose ``ts`` is null
is a commit-time delete. Small value domains make ties frequent on purpose.

A merger that reads columns of its own declares them in ``columns`` (name -> Arrow type and a
hypothesis strategy of values), and every generated row carries them::

    class TestMaxFare(RecordMergerContract):
        columns = {"fare": (pa.float64(), st.none() | st.sampled_from([0.0, 9.5, 12.0]))}
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import pickle
import uuid
from collections.abc import Iterator, Mapping
from decimal import Decimal
from types import MappingProxyType
from typing import Any, ClassVar, Final

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.merger import IS_DELETED_FIELD, RECORD_KEY_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging import commit_time_deletes, compare_ordering_values, delete_mask, with_flags
from hudi_framework.merge import merge_with_base
from hudi_framework.merge.selection import select_pairs

__all__ = [
    "NO_COLUMNS",
    "ORDERING_TYPES",
    "Columns",
    "RecordMergerContract",
    "merger_rows",
    "monotone_ordering",
    "version_tables",
]

#: A merger's own columns: name -> (Arrow type, hypothesis strategy of its values, nulls included if allowed).
Columns = Mapping[str, tuple[pa.DataType, st.SearchStrategy[Any]]]
#: No columns beyond the suite's own.
NO_COLUMNS: Final[Columns] = MappingProxyType({})

_UTC = dt.UTC
#: Ordering field types the suite draws from, each with a small domain so that ties are common.
ORDERING_TYPES: Final[Mapping[str, tuple[pa.DataType, tuple[Any, ...]]]] = MappingProxyType(
    {
        "int64": (pa.int64(), (-3, 0, 2, 2**40)),
        "int32": (pa.int32(), (-1, 0, 7)),
        "float64": (pa.float64(), (-math.inf, -1.5, 0.0, 2.25, math.inf, math.nan)),
        "string": (pa.string(), ("", "a", "ab", "b", "é")),
        "decimal": (pa.decimal128(10, 2), (Decimal("-1.50"), Decimal("0.00"), Decimal("0.01"), Decimal("12.00"))),
        "date": (pa.date32(), (dt.date(1970, 1, 1), dt.date(2024, 2, 29), dt.date(2024, 3, 1))),
        "timestamp": (
            pa.timestamp("us", tz="UTC"),
            (dt.datetime(2024, 1, 1, tzinfo=_UTC), dt.datetime(2024, 1, 1, 0, 0, 0, 1, tzinfo=_UTC)),
        ),
    }
)
_SETTINGS: Final = settings(
    max_examples=50,
    deadline=None,
    # The merger fixture is stateless, and each subclass runs the same inherited test methods.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors, HealthCheck.too_slow],
)
_NAN: Final = "<NaN>"


def _normalise(value: Any) -> Any:
    # NaN != NaN would make equal tables compare unequal.
    return _NAN if isinstance(value, float) and math.isnan(value) else value


def merger_rows(table: pa.Table) -> list[dict[str, Any]]:
    """Rows of ``table`` as dicts, NaN replaced by a marker so equal tables compare equal.

    Args:
        table: Rows.
    """
    return [{k: _normalise(v) for k, v in row.items()} for row in table.to_pylist()]


def _schema(ordering_type: pa.DataType, columns: Columns = NO_COLUMNS) -> pa.Schema:
    return pa.schema(
        [
            (RECORD_KEY_FIELD, pa.string()),
            ("ts", ordering_type),
            ("payload", pa.int64()),
            (IS_DELETED_FIELD, pa.bool_()),
            ("note", pa.string()),
            *((name, arrow_type) for name, (arrow_type, _) in columns.items()),
        ]
    )


def version_tables(
    data: st.DataObject, keys: list[str], count: int, ordering: str | None = None, columns: Columns = NO_COLUMNS
) -> tuple[list[pa.Table], pa.DataType]:
    """Draw ``count`` tables, each one version of every key in ``keys`` (row ``i`` is key ``i``).

    Args:
        data: Hypothesis's interactive draw.
        keys: The record key of each row.
        count: How many versions (tables) to draw; later tables are newer.
        ordering: An :data:`ORDERING_TYPES` name, or None to draw one.
        columns: The merger's own columns, drawn for every row.

    Returns:
        The tables and the ordering field's type.
    """
    name = ordering or data.draw(st.sampled_from(sorted(ORDERING_TYPES)), label="ordering type")
    arrow_type, domain = ORDERING_TYPES[name]
    values = st.one_of(st.none(), st.sampled_from(domain))
    tables = []
    for version in range(count):
        rows = [
            {
                RECORD_KEY_FIELD: key,
                "ts": data.draw(values),
                "payload": version * 1000 + i,
                IS_DELETED_FIELD: data.draw(st.sampled_from([False, False, False, True])),
                # Often null, so that mergers that fill missing columns (partial updates) are exercised.
                "note": data.draw(st.sampled_from([None, None, f"v{version}", "x"])),
                **{name: data.draw(values, label=name) for name, (_, values) in columns.items()},
            }
            for i, key in enumerate(keys)
        ]
        tables.append(pa.Table.from_pylist(rows, schema=_schema(arrow_type, columns)))
    return tables, arrow_type


def _batch(data: st.DataObject, ordering: str | None = None, columns: Columns = NO_COLUMNS) -> pa.Table:
    """A batch in arrival order whose keys repeat (few distinct keys, up to 12 rows)."""
    keys = data.draw(st.lists(st.sampled_from(["k0", "k1", "k2", "k3"]), min_size=0, max_size=12), label="keys")
    tables, _ = version_tables(data, keys, 1, ordering, columns)
    table = tables[0]
    # Make payloads unique per row (version_tables numbers rows within one version only).
    return table.set_column(2, "payload", pa.array(range(table.num_rows), type=pa.int64()))


def monotone_ordering(tables: list[pa.Table]) -> list[pa.Table]:
    """Reassign ``ts`` so that each key's ordering values never decrease in arrival order.

    Arrival order is table by table, row by row. The multiset of each key's values is kept.

    Args:
        tables: Tables of the suite's schema, oldest first.
    """
    if not tables:
        return tables
    combined = pa.concat_tables(tables)
    keys = combined.column(RECORD_KEY_FIELD).to_pylist()
    values = combined.column("ts").to_pylist()
    by_key: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        by_key.setdefault(key, []).append(i)
    order = functools.cmp_to_key(lambda x, y: compare_ordering_values((x,), (y,)))
    for positions in by_key.values():
        for i, value in zip(positions, sorted((values[i] for i in positions), key=order), strict=True):
            values[i] = value
    index = combined.schema.get_field_index("ts")
    combined = combined.set_column(index, "ts", pa.array(values, type=combined.schema.field(index).type))
    out, start = [], 0
    for table in tables:
        out.append(combined.slice(start, table.num_rows))
        start += table.num_rows
    return out


def _rows_of(table: pa.Table) -> Iterator[pa.Table]:
    for i in range(table.num_rows):
        yield table.slice(i, 1)


def _fold(merger: RecordMerger, versions: list[pa.Table], ctx: MergeContext) -> pa.Table:
    state = with_flags(versions[0], ctx)
    for newer in versions[1:]:
        state = merger.merge(state, newer, ctx)
    return state


def _write_one_by_one(
    merger: RecordMerger, state: dict[str, pa.Table], rows: pa.Table, ctx: MergeContext
) -> dict[str, pa.Table]:
    """Apply rows in order to a store that keeps deletes as tombstones (a merge-on-read view)."""
    for row in _rows_of(rows):
        key = row.column(ctx.record_key_field)[0].as_py()
        state[key] = merger.merge(state[key], row, ctx) if key in state else with_flags(row, ctx)
    return state


class RecordMergerContract:
    """Subclass in a ``Test*`` class and override the ``merger`` fixture."""

    #: Ordering types to test with; restrict it if your merger supports fewer.
    ordering_types: ClassVar[tuple[str, ...]] = tuple(sorted(ORDERING_TYPES))
    #: Draw only inputs whose event time agrees with arrival order (per key, ``ts`` never decreases).
    #: Set it for mergers that are associative only then, and document it (partial updates that fill
    #: from lower-ranked versions are such mergers).
    monotone_ordering: ClassVar[bool] = False
    #: The merger's own columns (name -> Arrow type and a strategy of values), drawn in every row.
    columns: ClassVar[Columns] = NO_COLUMNS

    def _arrange(self, tables: list[pa.Table]) -> list[pa.Table]:
        return monotone_ordering(tables) if self.monotone_ordering else tables

    @pytest.fixture
    def merger(self) -> RecordMerger:
        """The merger under test; subclasses must override this fixture."""
        raise NotImplementedError("override the `merger` fixture")

    @pytest.fixture
    def merge_context(self) -> MergeContext:
        """The merge context; the generated data orders by ``ts``."""
        return MergeContext(ordering_fields=("ts",))

    def _ordering(self, data: st.DataObject) -> str:
        return data.draw(st.sampled_from(self.ordering_types), label="ordering type")

    def _two_versions(self, data: st.DataObject) -> tuple[list[str], pa.Table, pa.Table]:
        """Up to six keys and an older and a newer version of each."""
        keys = [f"k{i}" for i in range(data.draw(st.integers(0, 6), label="rows"))]
        (older, newer), _ = version_tables(data, keys, 2, self._ordering(data), self.columns)
        return keys, older, newer

    def _versions(self, data: st.DataObject, keys: list[str], count: int) -> list[pa.Table]:
        tables, _ = version_tables(data, keys, count, self._ordering(data), self.columns)
        return tables

    def _batch(self, data: st.DataObject, ordering: str | None = None) -> pa.Table:
        return _batch(data, ordering or self._ordering(data), self.columns)

    # ------------------------------------------------------------------ identity and shape
    def test_strategy_id_is_a_uuid(self, merger: RecordMerger) -> None:
        assert str(uuid.UUID(merger.strategy_id)) == merger.strategy_id.lower()

    def test_empty_inputs(self, merger: RecordMerger, merge_context: MergeContext) -> None:
        empty = _schema(pa.int64(), self.columns).empty_table()
        merged = merger.merge(empty, empty, merge_context)
        assert merged.num_rows == 0
        assert set(merge_context.flag_fields) <= set(merged.column_names)
        assert merger.combine(empty, merge_context).num_rows == 0

    @_SETTINGS
    @given(data=st.data())
    def test_merge_is_aligned_and_flagged(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        keys, older, newer = self._two_versions(data)
        before = (merger_rows(older), merger_rows(newer))
        merged = merger.merge(older, newer, merge_context)
        assert (merger_rows(older), merger_rows(newer)) == before, "inputs must not change"
        assert merged.num_rows == len(keys)
        assert merged.column(RECORD_KEY_FIELD).to_pylist() == keys
        assert merged.column_names[: older.num_columns] == older.column_names
        for name in merge_context.flag_fields:
            assert merged.schema.field(name).type == pa.bool_()
            assert merged.column(name).null_count == 0

    @_SETTINGS
    @given(data=st.data())
    def test_select_agrees_with_merge(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        """Where the merger selects (``RecordMerger.select``), merge keeps exactly the selected rows."""
        keys, older, newer = self._two_versions(data)
        at = np.arange(len(keys), dtype=np.int64)
        selection = select_pairs(merger, older, at, newer, at, merge_context)
        if selection is None:
            return
        merged = merger.merge(older, newer, merge_context)
        flags = set(merge_context.flag_fields)
        data_columns = [name for name in older.column_names if name not in flags]
        chosen = [
            (newer if take else older).slice(i, 1).select(data_columns) for i, take in enumerate(selection.take_newer)
        ]
        expected = merger_rows(pa.concat_tables(chosen)) if chosen else []
        assert merger_rows(merged.select(data_columns)) == expected
        assert list(delete_mask(merged, merge_context)) == list(selection.deleted)

    # ------------------------------------------------------------------ algebra
    @_SETTINGS
    @given(data=st.data())
    def test_merge_is_associative(self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject) -> None:
        keys = [f"k{i}" for i in range(data.draw(st.integers(1, 6), label="rows"))]
        a, b, c = self._arrange(self._versions(data, keys, 3))
        left = merger.merge(merger.merge(a, b, merge_context), c, merge_context)
        right = merger.merge(a, merger.merge(b, c, merge_context), merge_context)
        assert merger_rows(left) == merger_rows(right)

    @_SETTINGS
    @given(data=st.data())
    def test_merge_and_combine_are_deterministic(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        keys = [f"k{i}" for i in range(data.draw(st.integers(1, 6), label="rows"))]
        a, b = self._versions(data, keys, 2)
        assert merger_rows(merger.merge(a, b, merge_context)) == merger_rows(merger.merge(a, b, merge_context))
        batch = self._batch(data)
        assert merger_rows(merger.combine(batch, merge_context)) == merger_rows(merger.combine(batch, merge_context))

    @_SETTINGS
    @given(data=st.data())
    def test_combine_equals_fold_of_merge(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        (batch,) = self._arrange([self._batch(data)])
        combined = merger.combine(batch, merge_context)
        keys = list(dict.fromkeys(batch.column(RECORD_KEY_FIELD).to_pylist()))
        assert combined.column(RECORD_KEY_FIELD).to_pylist() == keys
        for key, row in zip(keys, merger_rows(combined), strict=True):
            versions = [r for r in _rows_of(batch) if r.column(RECORD_KEY_FIELD)[0].as_py() == key]
            assert [row] == merger_rows(_fold(merger, versions, merge_context))

    @_SETTINGS
    @given(data=st.data())
    def test_combining_batches_then_writing_equals_writing_rows_one_by_one(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        ordering = self._ordering(data)
        count = data.draw(st.integers(1, 3), label="batches")
        batches = self._arrange([self._batch(data, ordering) for _ in range(count)])
        one_by_one: dict[str, pa.Table] = {}
        combined: dict[str, pa.Table] = {}
        for batch in batches:
            _write_one_by_one(merger, one_by_one, batch, merge_context)
            _write_one_by_one(merger, combined, merger.combine(batch, merge_context), merge_context)
        assert sorted(one_by_one) == sorted(combined)
        for key, state in one_by_one.items():
            assert merger_rows(state) == merger_rows(combined[key]), key

    @_SETTINGS
    @given(data=st.data())
    def test_merge_with_base_equals_the_live_fold(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        ordering = self._ordering(data)
        first, incoming = self._arrange([self._batch(data, ordering), self._batch(data, ordering)])
        base = merger.combine(first, merge_context)
        base = base.filter(pa.array(~delete_mask(base, merge_context))).drop_columns(
            [merge_context.supersedes_older_field]
        )
        result = merge_with_base(base, incoming, merger, merge_context)
        state = {row.column(RECORD_KEY_FIELD)[0].as_py(): with_flags(row, merge_context) for row in _rows_of(base)}
        _write_one_by_one(merger, state, merger.combine(incoming, merge_context), merge_context)
        live = {k: merger_rows(t)[0] for k, t in state.items() if not delete_mask(t, merge_context)[0]}
        got = {row[RECORD_KEY_FIELD]: row for row in merger_rows(result.table)}
        for row in live.values():
            row.pop(merge_context.supersedes_older_field)
        assert got == live

    # ------------------------------------------------------------------ deletes
    @_SETTINGS
    @given(data=st.data())
    def test_commit_time_delete_always_removes(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        keys = [f"k{i}" for i in range(data.draw(st.integers(1, 6), label="rows"))]
        (older,) = self._versions(data, keys, 1)
        deletes = commit_time_deletes(keys, merge_context)
        merged = merger.merge(older, deletes, merge_context)
        assert merged.column(IS_DELETED_FIELD).to_pylist() == [True] * len(keys)
        assert merged.column(merge_context.supersedes_older_field).to_pylist() == [True] * len(keys)

    @_SETTINGS
    @given(data=st.data())
    def test_write_after_commit_time_delete_is_live(
        self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject
    ) -> None:
        keys = [f"k{i}" for i in range(data.draw(st.integers(1, 6), label="rows"))]
        older, later = self._versions(data, keys, 2)
        later = later.set_column(3, IS_DELETED_FIELD, pa.array([False] * len(keys)))
        deleted = merger.merge(older, commit_time_deletes(keys, merge_context), merge_context)
        merged = merger.merge(deleted, later, merge_context)
        assert merged.column(IS_DELETED_FIELD).to_pylist() == [False] * len(keys)

    # ------------------------------------------------------------------ distribution
    @_SETTINGS
    @given(data=st.data())
    def test_picklable(self, merger: RecordMerger, merge_context: MergeContext, data: st.DataObject) -> None:
        clone: RecordMerger = pickle.loads(pickle.dumps(merger))
        context: MergeContext = pickle.loads(pickle.dumps(merge_context))
        keys = [f"k{i}" for i in range(data.draw(st.integers(1, 4), label="rows"))]
        a, b = self._versions(data, keys, 2)
        assert merger_rows(clone.merge(a, b, context)) == merger_rows(merger.merge(a, b, merge_context))
