"""Archival's choice of instants: each of Apache Hudi's rules on its own."""

from __future__ import annotations

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.services.archival_plan import ArchivalPolicy, MetadataTableState, instants_to_archive
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.vocabulary import CleanerPolicy

POLICY = ArchivalPolicy(min_commits=3, max_commits=5, commits_retained=1)


def _t(n: int) -> str:
    return f"20261128{n:09d}"


def _done(n: int, action: Action = Action.COMMIT) -> Instant:
    return Instant(_t(n), action, State.COMPLETED, _t(n) + "1")


def _commits(*numbers: int) -> list[Instant]:
    return [_done(n) for n in numbers]


def _times(instants: list[Instant]) -> list[str]:
    return [i.requested_time for i in instants]


def test_nothing_until_more_than_max_commits() -> None:
    assert instants_to_archive(_commits(1, 2, 3, 4, 5), POLICY) == []


def test_archives_the_oldest_down_to_min_commits() -> None:
    chosen = instants_to_archive(_commits(1, 2, 3, 4, 5, 6), POLICY)
    assert _times(chosen) == [_t(1), _t(2), _t(3)]


def test_cleans_and_rollbacks_older_than_the_last_archived_commit_go_with_it() -> None:
    timeline = [
        _done(1), _done(2, Action.CLEAN), _done(3), _done(4, Action.ROLLBACK), _done(5), _done(6),
        _done(7, Action.CLEAN), _done(8), _done(9), _done(10),
    ]  # fmt: skip
    chosen = instants_to_archive(timeline, POLICY)
    assert [(i.requested_time, i.action) for i in chosen] == [
        (_t(1), Action.COMMIT), (_t(2), Action.CLEAN), (_t(3), Action.COMMIT), (_t(4), Action.ROLLBACK),
        (_t(5), Action.COMMIT), (_t(6), Action.COMMIT),
    ]  # fmt: skip


def test_never_at_or_after_a_pending_instant_and_keeps_the_commit_before_it() -> None:
    timeline = [*_commits(1, 2, 3), Instant(_t(4), Action.CLEAN, State.INFLIGHT), *_commits(5, 6, 7, 8)]
    # The newest completed commit before the pending clean (3) is kept, as Java keeps it.
    assert _times(instants_to_archive(timeline, POLICY)) == [_t(1), _t(2)]


def test_a_pending_first_instant_blocks_everything() -> None:
    timeline = [Instant(_t(1), Action.COMMIT, State.INFLIGHT), *_commits(2, 3, 4, 5, 6, 7, 8)]
    assert instants_to_archive(timeline, POLICY) == []


def test_never_at_or_after_the_first_savepoint() -> None:
    timeline = [*_commits(1, 2), _done(3, Action.SAVEPOINT), *_commits(4, 5, 6, 7, 8)]
    assert _times(instants_to_archive(timeline, POLICY)) == [_t(1), _t(2)]


def test_the_cleaner_retention_raises_min_and_max() -> None:
    # KEEP_LATEST_COMMITS with 4 retained: the 4th newest commit and the one before it stay, so
    # min becomes 3 + 2 = 5 and max 5 + (5 - 3) = 7.
    policy = ArchivalPolicy(min_commits=3, max_commits=5, commits_retained=4)
    assert instants_to_archive(_commits(*range(1, 8)), policy) == []
    assert _times(instants_to_archive(_commits(*range(1, 9)), policy)) == [_t(1), _t(2), _t(3)]


def test_keep_latest_by_hours_raises_min_to_the_commits_in_the_window() -> None:
    hour = 10_000  # HHmmss + SSS digits: 1 hour = 01 0000 000 in the last 9 digits
    commits = [_done(n * hour * 1000) for n in range(1, 10)]  # one commit an hour, hours 1 to 9
    policy = ArchivalPolicy(
        min_commits=3, max_commits=5, clean_policy=CleanerPolicy.KEEP_LATEST_BY_HOURS, hours_retained=4
    )
    # Retained from hour 5 (4 hours before the latest); 4 commits after it: min 4 + 2 = 6, max 8.
    assert _times(instants_to_archive(commits, policy)) == _times(commits[:3])
    assert instants_to_archive(commits[:8], policy) == []


def test_merge_on_read_keeps_the_latest_compaction() -> None:
    policy = ArchivalPolicy(min_commits=3, max_commits=5, commits_retained=1, compaction_delta_commits=5)
    timeline = [_done(n, Action.DELTA_COMMIT) for n in (1, 2)] + [_done(3)]
    timeline += [_done(n, Action.DELTA_COMMIT) for n in (4, 5, 6, 7)]
    # Four delta commits since compaction 3 do not trigger the next (five do): 3 stays.
    assert _times(instants_to_archive(timeline, policy)) == [_t(1), _t(2)]


def test_merge_on_read_without_compaction_keeps_the_delta_commits_that_trigger_one() -> None:
    policy = ArchivalPolicy(min_commits=2, max_commits=4, commits_retained=1, compaction_delta_commits=4)
    timeline = [_done(n, Action.DELTA_COMMIT) for n in range(1, 9)]
    assert _times(instants_to_archive(timeline, policy)) == [_t(n) for n in (1, 2, 3, 4)]


def test_merge_on_read_delta_commit_bound_applies_only_with_a_count_trigger() -> None:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.compact.inline.trigger.strategy": "TIME_ELAPSED", "hoodie.clean.commits.retained": "1"}
    )
    assert ArchivalPolicy.for_table(settings, merge_on_read=True).compaction_delta_commits is None
    assert ArchivalPolicy.for_table(HudiSettings(), merge_on_read=True).compaction_delta_commits == 5
    assert ArchivalPolicy.for_table(HudiSettings(), merge_on_read=False).compaction_delta_commits is None


def test_a_replacecommit_whose_replaced_files_are_not_cleaned_stays() -> None:
    timeline = [*_commits(1, 2), _done(3, Action.REPLACE_COMMIT), *_commits(4, 5, 6, 7, 8)]
    assert _times(instants_to_archive(timeline, POLICY)) == [_t(1), _t(2)]
    # Once a clean retains from after it, its replaced files are gone and it may go.
    chosen = instants_to_archive(timeline, POLICY, last_clean_retained=_t(4))
    assert _times(chosen) == [_t(n) for n in (1, 2, 3, 4, 5)]


def test_nothing_before_the_metadata_table_compacted_once() -> None:
    state = MetadataTableState(latest_compaction="")
    assert instants_to_archive(_commits(*range(1, 9)), POLICY, metadata=state) == []


def test_never_a_commit_that_completed_after_the_metadata_table_compaction() -> None:
    commits = _commits(*range(1, 9))
    state = MetadataTableState(latest_compaction=commits[2].completion_time)  # after commit 3 completed
    assert _times(instants_to_archive(commits, POLICY, metadata=state)) == [_t(1), _t(2), _t(3)]
    state = MetadataTableState(latest_compaction=commits[1].completion_time)
    assert _times(instants_to_archive(commits, POLICY, metadata=state)) == [_t(1), _t(2)]


def test_metadata_table_keeps_what_the_data_table_still_has() -> None:
    state = MetadataTableState(data_floor=_t(3))
    timeline = [_done(n, Action.DELTA_COMMIT) for n in range(1, 9)]
    assert _times(instants_to_archive(timeline, POLICY, metadata=state)) == [_t(1), _t(2)]


def test_policies_from_settings() -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "hoodie.keep.min.commits": "7",
            "hoodie.keep.max.commits": "9",
            "hoodie.clean.commits.retained": "5",
            "hoodie.metadata.compact.max.delta.commits": "3",
        }
    )
    data = ArchivalPolicy.for_table(settings, merge_on_read=False)
    assert (data.min_commits, data.max_commits, data.commits_retained) == (7, 9, 5)
    mdt = ArchivalPolicy.for_metadata_table(settings)
    assert (mdt.min_commits, mdt.max_commits, mdt.compaction_delta_commits) == (7, 9, 3)


def test_settings_refuse_bounds_apache_hudi_refuses() -> None:
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.keep\.max\.commits.*greater than min_commits"):
        HudiSettings.from_hoodie_options({"hoodie.keep.min.commits": "20", "hoodie.keep.max.commits": "20"})
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.keep\.min\.commits.*hoodie\.clean\.commits\.retained"):
        HudiSettings.from_hoodie_options({"hoodie.keep.min.commits": "10", "hoodie.clean.commits.retained": "10"})
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.timeline\.compaction\.batch\.size"):
        HudiSettings.from_hoodie_options({"hoodie.timeline.compaction.batch.size": "1"})
