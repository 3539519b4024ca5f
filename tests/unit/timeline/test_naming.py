from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.naming import check_layout, instant_file_name, parse_instant_file_name

times = st.from_regex(r"\A\d{17}\Z", fullmatch=True) | st.from_regex(r"\A\d{14}\Z", fullmatch=True)


def _instants(layout: int) -> st.SearchStrategy[Instant]:
    actions = [a for a in Action if not (layout == 1 and a is Action.CLUSTERING)]

    def build(t: str, c: str, action: Action, state: State) -> Instant:
        if state is State.COMPLETED:
            return Instant(t, action.completes_as, state, c if layout == 2 else None)
        return Instant(t, action, state)

    return st.builds(build, times, times, st.sampled_from(actions), st.sampled_from(list(State)))


@pytest.mark.parametrize("layout", [1, 2])
@given(data=st.data())
def test_round_trip(layout: int, data: st.DataObject) -> None:
    instant = data.draw(_instants(layout))
    name = instant_file_name(instant, layout)
    parsed = parse_instant_file_name(name, layout)
    assert parsed is not None
    assert parsed.instant == instant
    assert not parsed.legacy_completed


@pytest.mark.parametrize(
    ("instant", "layout", "name"),
    [
        (Instant("1", Action.COMMIT, State.REQUESTED), 1, "1.commit.requested"),
        (Instant("1", Action.COMMIT, State.INFLIGHT), 1, "1.inflight"),
        (Instant("1", Action.COMMIT, State.INFLIGHT), 2, "1.inflight"),
        (Instant("1", Action.DELTA_COMMIT, State.INFLIGHT), 2, "1.deltacommit.inflight"),
        (Instant("1", Action.COMMIT, State.COMPLETED), 1, "1.commit"),
        (Instant("1", Action.COMMIT, State.COMPLETED, "2"), 2, "1_2.commit"),
        (Instant("1", Action.COMPACTION, State.COMPLETED, "2"), 2, "1_2.commit"),
        (Instant("1", Action.CLUSTERING, State.COMPLETED, "2"), 2, "1_2.replacecommit"),
        (Instant("1", Action.LOG_COMPACTION, State.COMPLETED), 1, "1.deltacommit"),
        (Instant("1", Action.CLUSTERING, State.REQUESTED), 2, "1.clustering.requested"),
        (Instant("1", Action.CLUSTERING, State.REQUESTED), 1, "1.replacecommit.requested"),
        (Instant("1", Action.SAVEPOINT, State.INFLIGHT), 1, "1.savepoint.inflight"),
    ],
)
def test_names(instant: Instant, layout: int, name: str) -> None:
    assert instant_file_name(instant, layout) == name


@pytest.mark.parametrize(
    "name",
    [
        "hoodie.properties",
        "._20240418172802262.commit",
        ".aux",
        "archived",
        "20240418172802262.unknownaction",
        "20240418172802262.commit.crc",
        "20240418172802262.commit.requested.tmp",
        "20240418172802262_20240418172802263.commit.requested",
    ],
)
def test_non_instant_files_are_skipped(name: str) -> None:
    assert parse_instant_file_name(name, 1) is None
    assert parse_instant_file_name(name, 2) is None


def test_layout_specifics() -> None:
    # A layout-2 name is not an instant file in layout 1.
    assert parse_instant_file_name("1_2.commit", 1) is None
    legacy = parse_instant_file_name("1.commit", 2)
    assert legacy is not None
    assert legacy.legacy_completed
    assert legacy.instant.completion_time is None
    bare = parse_instant_file_name("20240418172802262.inflight", 2)
    assert bare is not None
    assert bare.instant == Instant("20240418172802262", Action.COMMIT, State.INFLIGHT)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="layout"):
        check_layout(3)
    with pytest.raises(ValueError, match="completion time"):
        instant_file_name(Instant("1", Action.COMMIT, State.COMPLETED), 2)
