"""Time travel and incremental reads over history that cleaning deleted, on local disk and on S3.

Without a check, time travel to an instant whose file slices were cleaned reads whatever is left
(a partial or empty snapshot, no error). Apache Hudi (``TimelineUtils.validateTimestampAsOf``)
refuses an instant older than the latest clean's ``earliestCommitToRetain``; for
``KEEP_LATEST_FILE_VERSIONS`` (no retained commit) the check is on the files the cleans deleted.
Savepointed instants keep their files and stay readable. Every instant that does read is compared
with the model of the rows written and with hudi-rs (``as_of``).
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import CleanedInstantError, IncrementalPathNotFoundError
from hudi_framework.read.reader import build_options, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import instant_time_to_epoch_ms
from hudi_framework.vocabulary import TimelineTimezone
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import create_savepoint
from hudi_services_cleaning import CleanService, CleanServiceOptions
from tests.faults.s3_faults import Place, Rows, hudi_rs, rows_of

FALLBACK = "hoodie.datasource.read.incr.fallback.fulltablescan.enable"


class Writer:
    """Upserts batches and keeps the expected rows as of each instant."""

    def __init__(self, place: Place, table_type: str, version: int, settings: HudiSettings) -> None:
        config = new_table_config(
            "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
            ordering_fields=["ts"],
        )  # fmt: skip
        self.place = place
        self.client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options), settings)
        self.rows: dict[str, tuple[str, str, int]] = {}
        self.as_of: dict[str, Rows] = {}
        self.instants: list[str] = []

    def upsert(self, rows: Rows) -> str:
        batch = pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})
        instant = self.client.upsert(batch).instant.requested_time
        self.rows.update({r[0]: r for r in rows})
        self.as_of[instant] = sorted(self.rows.values())
        self.instants.append(instant)
        return instant

    def table(self) -> HudiTable:
        return self.place.open()

    def check(self, instant: str) -> None:
        """Time travel to ``instant`` returns exactly the rows written up to it, as hudi-rs does."""
        ours = rows_of(read_table(self.table(), as_of=instant))
        assert ours == self.as_of[instant], f"as of {instant}"
        assert hudi_rs(self.place.uri, self.place.endpoint, as_of=instant) == ours, f"hudi-rs as of {instant}"

    def refused(self, instant: str, earliest: str) -> CleanedInstantError:
        with pytest.raises(CleanedInstantError) as error:
            read_table(self.table(), as_of=instant)
        assert error.value.as_of == instant
        assert error.value.earliest == earliest
        assert instant in str(error.value)
        assert earliest in str(error.value)
        return error.value

    def retained(self) -> str:
        """The latest clean's ``earliestCommitToRetain``."""
        timeline = self.table().timeline
        latest = timeline.completed({Action.CLEAN})[-1]
        return decode_clean_metadata(timeline.read_bytes(latest)).earliest_commit_to_retain


def _clean(**clean: object) -> HudiSettings:
    # Merge-on-read updates go to log files (no small-file rewrites); compaction every two delta commits.
    return HudiSettings(
        write={"small_file_limit_bytes": 0},
        services={"clean": clean, "compaction": {"inline": True, "max_delta_commits": 2}},
    )  # type: ignore[arg-type]


def _step(step: int) -> Rows:
    """Two keys updated every time (one per partition), one new key per step."""
    return [("k0", "sf", step), ("k1", "ny", step), (f"n{step}", "sf" if step % 2 else "ny", step)]


# The rules read the timeline and a listing: one case of each test is enough on S3 (s3_cases).
@pytest.mark.s3_cases(table_type="COPY_ON_WRITE", version=9)
@pytest.mark.parametrize(
    ("table_type", "version"), [("COPY_ON_WRITE", 9), ("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9), ("MERGE_ON_READ", 6)]
)
def test_keep_latest_commits(place: Place, table_type: str, version: int) -> None:
    writer = Writer(place, table_type, version, _clean(commits_retained=2))
    for step in range(6):
        writer.upsert(_step(step))
    retained = writer.retained()
    # Merge-on-read counts its compaction commits too.
    assert retained == (writer.instants[-2] if table_type == "COPY_ON_WRITE" else writer.instants[-1])
    for instant in writer.instants:
        if instant < retained:
            writer.refused(instant, retained)
        else:
            writer.check(instant)
    # After the last commit but not a commit itself: the snapshot of that commit.
    between = str(int(writer.instants[-1]) + 1)
    assert rows_of(read_table(writer.table(), as_of=between)) == writer.as_of[writer.instants[-1]]


# The policies differ in what they retain, not in what they read: S3 runs the commits policy (above).
@pytest.mark.s3_full
def test_keep_latest_by_hours(place: Place) -> None:
    writer = Writer(place, "COPY_ON_WRITE", 9, _clean(automatic=False))
    for step in range(5):
        writer.upsert(_step(step))
    # A clock one hour after the third commit: the last three commits are the retained hours.
    cutoff = instant_time_to_epoch_ms(writer.instants[2], TimelineTimezone.LOCAL)
    now = dt.datetime.fromtimestamp(cutoff / 1000, dt.UTC) + dt.timedelta(hours=1)
    settings = _clean(policy="KEEP_LATEST_BY_HOURS", hours_retained=1)
    service = CleanService(CleanServiceOptions(**settings.services.clean.service_options()), now=now)
    (result,) = service.run(writer.table(), force=True)
    assert result.deleted > 0
    assert writer.retained() == writer.instants[2]
    for instant in writer.instants[:2]:
        writer.refused(instant, writer.instants[2])
    for instant in writer.instants[2:]:
        writer.check(instant)


@pytest.mark.s3_full  # as the hours policy
@pytest.mark.s3_cases(version=9)
@pytest.mark.parametrize("version", [9, 6])
def test_keep_latest_file_versions(place: Place, version: int) -> None:
    """No retained commit: an instant is refused exactly when a file it reads was cleaned.

    sf's file group is written by steps 0-2, ny's (created later) by steps 3-6; two versions of each
    are kept. Steps 1 and 2 read sf's kept versions and no ny file: still readable, although older
    than cleaned ones. Steps 0, 3 and 4 read cleaned versions.
    """
    settings = _clean(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=2)
    writer = Writer(place, "COPY_ON_WRITE", version, settings)
    for step in range(7):
        writer.upsert([("a", "sf", step)] if step < 3 else [("b", "ny", step)])
    assert writer.retained() == ""
    t = writer.instants
    error = writer.refused(t[0], t[1])
    assert "sf/" in error.reason
    writer.refused(t[3], t[5])
    writer.refused(t[4], t[5])
    for instant in (t[1], t[2], t[5], t[6]):
        writer.check(instant)


@pytest.mark.s3_cases(table_type="COPY_ON_WRITE", version=6)
@pytest.mark.parametrize(
    ("table_type", "version", "policy"),
    [
        ("MERGE_ON_READ", 9, {"commits_retained": 2}),
        ("COPY_ON_WRITE", 6, {"commits_retained": 2}),
        ("COPY_ON_WRITE", 9, {"policy": "KEEP_LATEST_FILE_VERSIONS", "file_versions_retained": 1}),
    ],
)
def test_savepointed_instant_stays_readable(
    place: Place, table_type: str, version: int, policy: dict[str, object]
) -> None:
    writer = Writer(place, table_type, version, _clean(**policy))
    for step in range(2):
        writer.upsert(_step(step))
    saved = writer.instants[1]
    create_savepoint(writer.table(), saved, user="test")
    for step in range(2, 7):
        writer.upsert(_step(step))
    writer.check(saved)
    by_commits = "commits_retained" in policy
    error = writer.refused(writer.instants[2], writer.retained() if by_commits else writer.instants[-1])
    assert error.savepoints == (saved,)
    assert saved in str(error)


def test_incremental_read_across_cleaned_commits(place: Place) -> None:
    """v8+: a window whose files were cleaned falls back to a full table scan (Apache Hudi's default);
    with the fallback off the error names the file and the clean that deleted it."""
    writer = Writer(place, "COPY_ON_WRITE", 9, _clean(commits_retained=2))
    for step in range(6):
        writer.upsert(_step(step))
    table = writer.table()
    commits = table.timeline.commits_timeline()
    end = commits[1].completion_time
    plan = plan_read(table, build_options(query_type="incremental", end=end))
    assert plan.full_table_scan
    # The fallback scans the latest snapshot for records last written in the window: n1 (k0, k1 moved on).
    window = {commits[0].requested_time, commits[1].requested_time}
    rows = read_table(table, query_type="incremental", end=end)
    assert rows_of(rows) == [("n0", "ny", 0), ("n1", "sf", 1)]
    assert set(rows.column("_hoodie_commit_time").to_pylist()) <= window
    with pytest.raises(IncrementalPathNotFoundError) as error:
        read_table(table, query_type="incremental", end=end, options={FALLBACK: "false"})
    cleans = [c.requested_time for c in table.timeline.completed({Action.CLEAN})]
    assert error.value.cleaned_by in cleans
    assert error.value.cleaned_by in str(error.value)
    assert writer.retained() in str(error.value)
    # A window inside the retained history reads exactly its changes.
    begin = commits[-2].completion_time
    latest = read_table(table, query_type="incremental", begin=begin)
    assert rows_of(latest) == sorted(_step(5))


@pytest.mark.parametrize("place", ["local"], indirect=True)  # the v8+ test above covers S3
def test_incremental_read_across_cleaned_commits_v6(place: Place) -> None:
    """v6: no fallback by default (Java's ``MergeOnReadIncrementalRelationV1``): the error names the clean."""
    writer = Writer(place, "MERGE_ON_READ", 6, _clean(commits_retained=2))
    for step in range(6):
        writer.upsert(_step(step))
    with pytest.raises(IncrementalPathNotFoundError) as error:
        read_table(writer.table(), query_type="incremental", end=writer.instants[1])
    assert error.value.cleaned_by is not None
    rows = read_table(writer.table(), query_type="incremental", end=writer.instants[1], options={FALLBACK: "true"})
    assert rows_of(rows) == [("n0", "ny", 0), ("n1", "sf", 1)]
