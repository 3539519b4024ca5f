"""Kafka checkpoints and offset ranges: Apache Hudi's string format and its spreading of a limit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.errors import CheckpointError
from hudi_sources_kafka.offsets import OffsetRange, compute_ranges, format_checkpoint, parse_checkpoint, reached

_offsets = st.dictionaries(st.integers(0, 50), st.integers(0, 10**12), min_size=1, max_size=8)


@given(_offsets)
def test_checkpoint_round_trips(offsets: dict[int, int]) -> None:
    text = format_checkpoint("trips", offsets)
    assert parse_checkpoint("kafka-json", "trips", text) == offsets


def test_checkpoint_is_apache_hudis_string() -> None:
    assert format_checkpoint("trips.v1", {2: 77, 0: 120, 1: 98}) == "trips.v1,0:120,1:98,2:77"


@pytest.mark.parametrize(
    ("checkpoint", "why"),
    [
        ("other,0:5,1:6", "topic 'other'"),
        ("trips", "expected 'topic,partition:offset"),
        ("trips,", "expected 'topic,partition:offset"),
        ("1700000000000", "expected 'topic,partition:offset"),
        ("trips,0-5", "'0-5' is not 'partition:offset'"),
        ("trips,0:x", "'0:x' is not 'partition:offset'"),
        ("trips,0:-1", "'0:-1' is not 'partition:offset'"),
        ("trips,0:5,0:6", "partition 0 is named twice"),
    ],
)
def test_a_foreign_or_malformed_checkpoint_is_refused(checkpoint: str, why: str) -> None:
    with pytest.raises(CheckpointError, match=why) as e:
        parse_checkpoint("kafka-json", "trips", checkpoint)
    assert e.value.checkpoint == checkpoint


def test_a_limit_is_spread_round_robin_as_hudi_does() -> None:
    # 50 records over two partitions: 25 each per round; partition 1 has only 10, partition 0 takes the rest.
    ranges = compute_ranges({0: 0, 1: 0}, {0: 100, 1: 10}, limit=50, min_partitions=0)
    assert ranges == (OffsetRange(0, 0, 25), OffsetRange(0, 25, 40), OffsetRange(1, 0, 10))
    assert reached({0: 0, 1: 0}, ranges) == {0: 40, 1: 10}


def test_min_partitions_cuts_a_large_partition() -> None:
    ranges = compute_ranges({0: 100}, {0: 200}, limit=10**6, min_partitions=4)
    assert ranges == tuple(OffsetRange(0, 100 + 25 * i, 125 + 25 * i) for i in range(4))


def test_nothing_new_gives_no_range() -> None:
    assert compute_ranges({0: 7, 1: 3}, {0: 7, 1: 3}, limit=100, min_partitions=0) == ()
    assert compute_ranges({0: 0}, {0: 9}, limit=0, min_partitions=0) == ()


@given(
    st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500)), min_size=1, max_size=6),
    st.integers(0, 3000),
    st.integers(0, 20),
)
def test_ranges_take_the_limit_contiguously_from_the_start(
    bounds: list[tuple[int, int]], limit: int, min_partitions: int
) -> None:
    start = {p: a for p, (a, _) in enumerate(bounds)}
    end = {p: a + n for p, (a, n) in enumerate(bounds)}
    ranges = compute_ranges(start, end, limit=limit, min_partitions=min_partitions)
    assert sum(r.count for r in ranges) == min(limit, sum(n for _, n in bounds))
    assert all(r.count > 0 for r in ranges)
    for p in end:
        mine = [r for r in ranges if r.partition == p]
        position = start[p]
        for r in mine:  # sorted, adjacent, inside the partition's bounds
            assert r.start == position
            position = r.stop
        assert position <= end[p]
    # Resuming from where the batch ends, then taking everything, covers each partition exactly once.
    rest = compute_ranges(reached(start, ranges), end, limit=10**9, min_partitions=0)
    assert reached(reached(start, ranges), rest) == end
