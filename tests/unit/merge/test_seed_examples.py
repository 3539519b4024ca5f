"""The worked examples of the Record Merger page (seed 000), reproduced exactly.

Ordering field ``ts``, record key ``id``; stored ``(1, 2, name_2, price_2)``, incoming
``(1, 1, name_1, price_1)``.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.merge import merge_with_base

SCHEMA = pa.schema([("_hoodie_record_key", pa.string()), ("id", pa.string()), ("ts", pa.int64()),
                    ("name", pa.string()), ("price", pa.string())])  # fmt: skip
STORED = pa.Table.from_pylist(
    [{"_hoodie_record_key": "1", "id": "1", "ts": 2, "name": "name_2", "price": "price_2"}], schema=SCHEMA
)
INCOMING = pa.Table.from_pylist(
    [{"_hoodie_record_key": "1", "id": "1", "ts": 1, "name": "name_1", "price": "price_1"}], schema=SCHEMA
)
CTX = MergeContext(ordering_fields=("ts",), schema=SCHEMA)


def _visible(merger: RecordMerger) -> list[tuple[object, ...]]:
    rows = merge_with_base(STORED, INCOMING, merger, CTX).table.to_pylist()
    return [(r["id"], r["ts"], r["name"], r["price"]) for r in rows]


def test_overwrite_with_latest_is_commit_time_ordering(commit_time: RecordMerger) -> None:
    # "Result data after merging using OverwriteWithLatestAvroPayload (latest-write-wins)"
    assert _visible(commit_time) == [("1", 1, "name_1", "price_1")]


def test_default_payload_is_event_time_ordering(event_time: RecordMerger) -> None:
    # "Result data after merging using DefaultHoodieRecordPayload (always honors ordering field)"
    assert _visible(event_time) == [("1", 2, "name_2", "price_2")]


@pytest.mark.parametrize(("fixture", "expected"), [("commit_time", "name_1"), ("event_time", "name_2")])
def test_the_same_outcome_in_every_code_path(request: pytest.FixtureRequest, fixture: str, expected: str) -> None:
    merger: RecordMerger = request.getfixturevalue(fixture)
    # pre-combine of one batch holding both versions (stored first) ...
    combined = merger.combine(pa.concat_tables([STORED, INCOMING]), CTX)
    # ... the aligned merge (MOR read: base then log record) ...
    merged = merger.merge(STORED, INCOMING, CTX)
    assert combined.column("name").to_pylist() == merged.column("name").to_pylist() == [expected]


def test_merge_result_carries_the_stored_version_whole(event_time: RecordMerger) -> None:
    result = merge_with_base(STORED, INCOMING, event_time, CTX)
    assert result.table.schema == SCHEMA
    assert result.table.equals(STORED)
    assert (result.num_updates, result.num_inserts, result.num_deletes, result.num_unchanged) == (1, 0, 0, 0)
