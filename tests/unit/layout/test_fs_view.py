"""The file-system view on synthetic layouts: v6 and v8+ slicing, pending compaction, replaced
file groups, uncommitted files and time travel."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.contracts.storage import FileInfo
from hudi_framework.errors import MissingDataFileError, UnsupportedFormatError
from hudi_framework.layout import (
    BaseFileName,
    FileGroupId,
    FileSlice,
    FileSystemView,
    LogFileName,
    TableListing,
    check_base_file_formats,
)
from hudi_framework.timeline.instant import Action, Instant, State

EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
P = "region=eu"
FG = FileGroupId(P, "f-0")


def t(n: int) -> str:
    """Instant time n, 17 digits so string order is numeric order."""
    return f"{n:017d}"


def base(n: int, file_id: str = "f-0", token: str = "0-0-0", ext: str = "parquet") -> str:
    return BaseFileName(file_id, token, t(n), ext).name


def log(n: int, file_id: str = "f-0", version: int = 1, token: str = "0-0-0", cdc: bool = False) -> str:
    return LogFileName(file_id, t(n), version, token, cdc=cdc).name


def done(*pairs: tuple[int, int] | tuple[int, int, Action]) -> list[Instant]:
    out = []
    for pair in pairs:
        action = pair[2] if len(pair) == 3 else Action.DELTA_COMMIT
        out.append(Instant(t(pair[0]), action, State.COMPLETED, t(pair[1])))
    return out


def make_view(
    files: Mapping[str, Iterable[str]],
    instants: list[Instant],
    version: int,
    **kwargs: object,
) -> FileSystemView:
    listing = {p: [FileInfo(f"{p}/{name}" if p else name, 10, EPOCH) for name in names] for p, names in files.items()}
    return FileSystemView(listing, completed_instants=instants, table_version=version, **kwargs)  # type: ignore[arg-type]


def shape(s: FileSlice | None) -> tuple[str, str | None, list[str]] | None:
    if s is None:
        return None
    return (s.base_instant_time, s.base_file_name, s.log_file_names)


# ------------------------------------------------------------------ v6
def test_v6_cow_versions_and_uncommitted_files() -> None:
    view = make_view({P: [base(1), base(2), base(3)]}, done((1, 1), (2, 2)), 6)
    assert shape(view.latest_file_slice(FG)) == (t(2), base(2), [])
    assert [s.base_instant_time for s in view.file_slices(FG)] == [t(1), t(2)]
    assert shape(view.latest_file_slice(FG, as_of=t(1))) == (t(1), base(1), [])
    assert view.latest_file_slice(FG, as_of=t(0)) is None
    [only] = view.latest_file_slices()
    assert only.file_group_id == FG
    assert only.base_file is not None
    assert only.base_file.size == 10
    assert only.base_file_key == f"{P}/{base(2)}"


def test_v6_logs_join_the_slice_named_by_their_base_instant() -> None:
    files = {P: [base(1), log(1, version=2, token="1-0-1"), log(1), log(1, version=2, token="0-33-43"), base(5)]}
    view = make_view(files, done((1, 1), (3, 3), (5, 5)), 6)
    first, second = view.file_slices(FG)
    assert shape(first) == (
        t(1),
        base(1),
        [log(1), log(1, version=2, token="0-33-43"), log(1, version=2, token="1-0-1")],
    )
    assert shape(second) == (t(5), base(5), [])
    assert first.log_file_keys[0] == f"{P}/{log(1)}"
    assert first.log_files[0].completion_time is None  # v6 logs carry the base instant only


def test_v6_pending_compaction() -> None:
    # Compaction 3 was scheduled after delta commit 2; its base file is partially written; delta
    # commit 4 then wrote a log against the compaction's new slice.
    files = {P: [base(1), log(1), base(3, token="9-9-9"), log(3)]}
    pending = {FG: t(3)}
    view = make_view(files, done((1, 1), (2, 2), (4, 4)), 6, pending_compactions=pending)
    assert shape(view.latest_file_slice(FG)) == (t(1), base(1), [log(1), log(3)])
    assert shape(view.latest_file_slice(FG, merge_pending_compaction=False)) == (t(3), None, [log(3)])
    assert shape(view.latest_file_slice(FG, as_of=t(2))) == (t(1), base(1), [log(1)])
    # Once the compaction completes, its base file starts the latest slice.
    view = make_view(files, done((1, 1), (2, 2), (3, 5, Action.COMMIT), (4, 4)), 6)
    assert shape(view.latest_file_slice(FG)) == (t(3), base(3, token="9-9-9"), [log(3)])


def test_freshly_scheduled_compaction_gives_an_empty_slice_to_writers() -> None:
    view = make_view({P: [base(1), log(1)]}, done((1, 1), (2, 2)), 6, pending_compactions={FG: t(3)})
    assert shape(view.latest_file_slice(FG)) == (t(1), base(1), [log(1)])
    unmerged = view.latest_file_slice(FG, merge_pending_compaction=False)
    assert unmerged is not None
    assert unmerged.is_empty
    assert unmerged.base_instant_time == t(3)
    # Pending compaction of a group with nothing committed: no group.
    view = make_view({P: [base(3)]}, [], 6, pending_compactions={FG: t(3)})
    assert view.latest_file_slices() == []


def test_replaced_file_groups_disappear_once_the_replacecommit_is_visible() -> None:
    new = FileGroupId(P, "g-0")
    files = {P: [base(1), base(5, file_id="g-0")]}
    instants = done((1, 1, Action.COMMIT), (5, 6, Action.REPLACE_COMMIT))
    view = make_view(files, instants, 8, replaced_file_groups={FG: t(5)})
    assert [s.file_group_id for s in view.latest_file_slices()] == [new]
    assert [s.file_group_id for s in view.latest_file_slices(as_of=t(4))] == [FG]
    assert view.file_slices(FG) == []
    assert view.latest_file_slice(FG) is None
    assert view.latest_file_slice(FG, as_of=t(4)) is not None
    groups = view.all_file_groups(include_replaced=True)
    assert [(g.id, g.replaced_by) for g in groups] == [(FG, t(5)), (new, None)]
    assert [g.id for g in view.all_file_groups()] == [new]


def test_log_only_groups_are_kept_and_flagged() -> None:
    files = {P: [base(1), log(2, file_id="h-0"), log(2, file_id="h-0", version=2)]}
    view = make_view(files, done((1, 1), (2, 2)), 6)
    slices = view.latest_file_slices()
    assert [s.file_id for s in slices] == ["f-0", "h-0"]
    assert slices[1].base_file is None
    assert slices[1].base_file_format is None
    assert [g.is_log_only for g in view.all_file_groups()] == [False, True]
    assert [s.file_id for s in view.latest_file_slices(include_log_only=False)] == ["f-0"]


def test_archived_instants_count_as_committed() -> None:
    files = {P: [base(1), log(2), base(3)]}
    assert make_view(files, done((3, 3)), 8).file_slices(FG)[0].base_instant_time == t(3)
    view = make_view(files, done((3, 4)), 8, timeline_start=t(3))
    assert [shape(s) for s in view.file_slices(FG)] == [(t(1), base(1), [log(2)]), (t(3), base(3), [])]


def test_stray_files_cdc_logs_and_extensions() -> None:
    files = {
        P: [
            base(1),
            base(1, file_id="l-0", ext="lance"),
            log(1, cdc=True),
            ".DS_Store",
            ".hoodie_partition_metadata",
            f".{base(1)}.crc",
        ],
        "": [],
    }
    view = make_view(files, done((1, 1)), 8)
    assert view.partitions == ["", P]
    assert [shape(s) for s in view.latest_file_slices()] == [
        (t(1), base(1), []),
        (t(1), base(1, "l-0", ext="lance"), []),
    ]
    assert [s.base_file_format for s in view.latest_file_slices()] == ["parquet", "lance"]
    assert view.latest_file_slices("") == []
    restricted = make_view(files, done((1, 1)), 8, base_file_extensions=[".PARQUET"])
    assert [s.file_id for s in restricted.latest_file_slices()] == ["f-0"]
    with pytest.raises(UnsupportedFormatError, match="lance") as info:
        check_base_file_formats(view.latest_file_slices())
    assert f"{P}/{base(1, 'l-0', ext='lance')}" in str(info.value)
    check_base_file_formats(view.latest_file_slices(), supported=("parquet", "lance"))


def test_duplicate_base_files_for_one_instant_keep_the_last_name() -> None:
    view = make_view({P: [base(1, token="1-0-0"), base(1, token="0-0-0")]}, done((1, 1)), 6)
    assert view.latest_file_slices()[0].base_file_name == base(1, token="1-0-0")


def test_table_listing_input_and_non_write_instants() -> None:
    listing = TableListing({"": (FileInfo(base(1), 3, EPOCH),)})
    instants = [
        Instant(t(1), Action.CLEAN, State.COMPLETED, t(2)),
        Instant(t(1), Action.COMMIT, State.INFLIGHT),
    ]
    assert FileSystemView(listing, completed_instants=instants, table_version=6).latest_file_slices() == []
    view = FileSystemView(listing, completed_instants=done((1, 2, Action.COMMIT)), table_version=6)
    assert view.table_version == 6
    [s] = view.latest_file_slices()
    assert s.base_file is not None
    assert s.base_file.completion_time == t(2)
    assert s.partition_path == ""
    assert s.base_file_key == base(1)
    assert view.file_slices(FileGroupId("", "nope")) == []


# ------------------------------------------------------------------ v8+
def test_v8_logs_join_by_completion_time() -> None:
    # base 10 done at 11; delta 12 done at 13; delta 14 runs across compaction 15 (done at 18) and
    # completes at 20, after the compaction was planned: it belongs to the new slice.
    files = {P: [base(10), log(12), log(14), base(15), log(16)]}
    instants = done((10, 11, Action.COMMIT), (12, 13), (14, 20), (15, 18, Action.COMMIT))
    view = make_view(files, instants, 8)
    assert [shape(s) for s in view.file_slices(FG)] == [
        (t(10), base(10), [log(12)]),
        (t(15), base(15), [log(14)]),  # log 16 is uncommitted
    ]
    assert view.file_slices(FG)[1].log_files[0].completion_time == t(20)
    assert shape(view.latest_file_slice(FG, as_of=t(13))) == (t(10), base(10), [log(12)])
    assert shape(view.latest_file_slice(FG, as_of=t(12))) == (t(10), base(10), [log(12)])
    assert shape(view.latest_file_slice(FG, as_of=t(11))) == (t(10), base(10), [])
    assert shape(view.latest_file_slice(FG, as_of=t(15))) == (t(15), base(15), [log(14)])


def test_v8_pending_compaction_merges_for_readers() -> None:
    files = {P: [base(10), log(12), log(14), base(15, token="7-7-7")]}
    instants = done((10, 11, Action.COMMIT), (12, 13), (14, 20))
    view = make_view(files, instants, 9, pending_compactions={FG: t(15)})
    assert shape(view.latest_file_slice(FG)) == (t(10), base(10), [log(12), log(14)])
    assert shape(view.latest_file_slice(FG, merge_pending_compaction=False)) == (t(15), None, [log(14)])


def test_v8_logs_completed_before_every_base_file() -> None:
    files = {P: [log(5), log(7), base(20)], "": [log(3, file_id="x-0"), log(4, file_id="x-0")]}
    instants = done((3, 9), (4, 5), (5, 6), (7, 8), (20, 21, Action.COMMIT))
    view = make_view(files, instants, 8)
    assert [shape(s) for s in view.file_slices(FG)] == [(t(5), None, [log(5), log(7)]), (t(20), base(20), [])]
    log_only = FileGroupId("", "x-0")
    # Logs are placed in Java's order: 3 opens the slice (at its requested time), 4 joins it.
    assert [shape(s) for s in view.file_slices(log_only)] == [(t(3), None, [log(3, "x-0"), log(4, "x-0")])]


# ------------------------------------------------------------------ properties
@st.composite
def v8_layouts(draw: st.DrawFn) -> tuple[list[int], list[tuple[int, int]], list[int]]:
    """Base instants, (log requested, completion) pairs and uncommitted instants on one group."""
    times = draw(st.lists(st.integers(1, 400), min_size=1, max_size=20, unique=True))
    bases, logs, pending = [], [], []
    for n in times:
        kind = draw(st.sampled_from(["base", "log", "log", "pending"]))
        if kind == "base":
            bases.append(n)
        elif kind == "log":
            logs.append((n, n + draw(st.integers(0, 60))))
        else:
            pending.append(n)
    return bases, logs, pending


@given(v8_layouts(), st.one_of(st.none(), st.integers(0, 460)))
def test_v8_slicing_properties(layout: tuple[list[int], list[tuple[int, int]], list[int]], as_of_n: int | None) -> None:
    bases, logs, pending = layout
    files = {P: [base(n) for n in bases] + [log(n) for n, _ in logs] + [base(n) for n in pending]}
    instants = done(*[(n, n) for n in bases], *logs)
    as_of = None if as_of_n is None else t(as_of_n)
    slices = make_view(files, instants, 8).file_slices(FG, as_of=as_of)
    visible_bases = sorted(n for n in bases if as_of_n is None or n <= as_of_n)
    visible_logs = {n: c for n, c in logs if as_of_n is None or n <= as_of_n}
    seen_logs = []
    for s in slices:
        assert s.base_file is None or s.base_file.instant_time == s.base_instant_time
        for lf in s.log_files:
            n = int(lf.instant_time)
            seen_logs.append(n)
            owners = [b for b in visible_bases if b <= visible_logs[n]]
            # The latest base file requested at or before the log's completion, else a log-only slice.
            assert s.base_instant_time == (t(max(owners)) if owners else s.base_instant_time)
            assert owners or s.base_file is None
        assert [lf.sort_key() for lf in s.log_files] == sorted(lf.sort_key() for lf in s.log_files)
    assert sorted(seen_logs) == sorted(visible_logs)
    assert sorted(int(s.base_instant_time) for s in slices if s.base_file) == visible_bases
    assert [s.base_instant_time for s in slices] == sorted(s.base_instant_time for s in slices)


@given(
    st.lists(st.integers(1, 50), min_size=1, max_size=12, unique=True),
    st.lists(st.tuples(st.integers(1, 50), st.integers(1, 3)), max_size=12, unique=True),
    st.sets(st.integers(1, 50)),
)
def test_v6_slicing_properties(bases: list[int], logs: list[tuple[int, int]], committed: set[int]) -> None:
    files = {P: [base(n) for n in bases] + [log(n, version=v) for n, v in logs]}
    view = make_view(files, done(*[(n, n) for n in committed]), 6)
    slices = view.file_slices(FG)
    for s in slices:
        assert int(s.base_instant_time) in committed
        assert all(lf.instant_time == s.base_instant_time for lf in s.log_files)
    expected_logs = sorted((n, v) for n, v in logs if n in committed)
    got = sorted((int(lf.instant_time), lf.file_name.version) for s in slices for lf in s.log_files)
    assert got == expected_logs
    latest = view.latest_file_slice(FG)
    assert latest == (slices[-1] if slices else None)


# ------------------------------------------------------------------ files the timeline names
def test_timeline_files_the_listing_lacks_are_sliced_and_reported() -> None:
    written = {P: {base(1): t(1), base(2): t(2), base(1, "g-0"): t(1)}}
    view = make_view({P: [base(1), base(1, "g-0")]}, done((1, 1, Action.COMMIT), (2, 2, Action.COMMIT)), 8,
                     timeline_files=written)  # fmt: skip
    latest = view.latest_file_slices()
    assert [shape(s) for s in latest] == [(t(2), base(2), []), (t(1), base(1, "g-0"), [])]
    assert view.missing_files(latest) == {f"{P}/{base(2)}": t(2)}
    with pytest.raises(MissingDataFileError) as error:
        view.check_files(latest)
    assert (error.value.key, error.value.instant) == (f"{P}/{base(2)}", t(2))
    older = view.latest_file_slices(as_of=t(1))
    assert view.missing_files(older) == {}
    view.check_files(older)  # the listed version serves the snapshot as of t1


def test_a_lost_partition_is_still_a_partition() -> None:
    view = make_view({P: [base(1)]}, done((1, 1, Action.COMMIT)), 8, timeline_files={"gone": {base(1, "h-0"): t(1)}})
    assert view.partitions == ["gone", P]
    assert list(view.missing_files(view.latest_file_slices())) == [f"gone/{base(1, 'h-0')}"]


def test_v6_log_first_written_after_as_of_is_not_read_then() -> None:
    # One v6 log file of the t1 slice, appended by delta commits t2 (version 1) and t3 (version 2).
    instants = done((1, 1, Action.COMMIT), (2, 2), (3, 3))
    written = {P: {base(1): t(1), log(1): t(2), log(1, version=2): t(3)}}
    view = make_view({P: [base(1), log(1)]}, instants, 6, timeline_files=written)
    assert shape(view.latest_file_slice(FG, as_of=t(2))) == (t(1), base(1), [log(1)])
    assert view.missing_files([view.latest_file_slice(FG, as_of=t(2))]) == {}  # type: ignore[list-item]
    latest = view.latest_file_slices()
    assert shape(latest[0]) == (t(1), base(1), [log(1), log(1, version=2)])
    assert view.missing_files(latest) == {f"{P}/{log(1, version=2)}": t(3)}


def test_without_timeline_files_nothing_is_missing() -> None:
    view = make_view({P: [base(1)]}, done((1, 1, Action.COMMIT), (2, 2, Action.COMMIT)), 8)
    assert view.missing_files(view.latest_file_slices()) == {}
