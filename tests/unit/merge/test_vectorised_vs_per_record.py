"""The vectorised built-ins agree with per-record references run through the kernel adapter."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.merger import MergeContext, PerRecordMerger, RecordMerger
from hudi_framework.testing.merger_contract import ORDERING_TYPES, merger_rows, version_tables
from tests.unit.merge.reference import RecordCommitTimeMerger, RecordEventTimeMerger

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PAIRS = (("event_time", RecordEventTimeMerger()), ("commit_time", RecordCommitTimeMerger()))


@pytest.mark.parametrize(("fixture", "reference"), PAIRS, ids=[p[0] for p in PAIRS])
@SETTINGS
@given(data=st.data())
def test_merge_agrees(
    request: pytest.FixtureRequest, fixture: str, reference: PerRecordMerger, data: st.DataObject
) -> None:
    merger: RecordMerger = request.getfixturevalue(fixture)
    assert merger.supports_vectorised
    keys = [f"k{i}" for i in range(data.draw(st.integers(0, 10)))]
    (older, newer), _ = version_tables(data, keys, 2)
    ctx = MergeContext(ordering_fields=data.draw(st.sampled_from([(), ("ts",), ("ts", "payload"), ("missing",)])))
    assert merger_rows(merger.merge(older, newer, ctx)) == merger_rows(reference.merge(older, newer, ctx))


@pytest.mark.parametrize(("fixture", "reference"), PAIRS, ids=[p[0] for p in PAIRS])
@SETTINGS
@given(data=st.data())
def test_combine_agrees(
    request: pytest.FixtureRequest, fixture: str, reference: PerRecordMerger, data: st.DataObject
) -> None:
    merger: RecordMerger = request.getfixturevalue(fixture)
    keys = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), max_size=20))
    (batch,), _ = version_tables(data, keys, 1)
    ctx = MergeContext(ordering_fields=("ts",))
    assert merger_rows(merger.combine(batch, ctx)) == merger_rows(reference.combine(batch, ctx))


@pytest.mark.parametrize("ordering", sorted(ORDERING_TYPES))
def test_every_ordering_type_round_trips_through_both(event_time: RecordMerger, ordering: str) -> None:
    arrow_type, domain = ORDERING_TYPES[ordering]
    values = [None, *domain]
    older = pa.table({"_hoodie_record_key": ["k"] * len(values) ** 2,
                      "ts": pa.array([o for o in values for _ in values], type=arrow_type)})  # fmt: skip
    newer = pa.table({"_hoodie_record_key": ["k"] * len(values) ** 2,
                      "ts": pa.array([n for _ in values for n in values], type=arrow_type)})  # fmt: skip
    ctx = MergeContext(ordering_fields=("ts",))
    reference = RecordEventTimeMerger().merge(older, newer, ctx)
    assert merger_rows(event_time.merge(older, newer, ctx)) == merger_rows(reference)
