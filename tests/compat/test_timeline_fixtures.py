"""Our timeline against hudi-rs and the raw files, on every fixture table written by Apache Hudi.

For each table (v6, v8, v9; COW and MOR; Lance tables too, whose timeline is ordinary):

* the completed commit, deltacommit and replacecommit instants (requested time, action) equal
  those of hudi-rs (``HudiTimeline.get_completed_*``);
* every commit-metadata file (completed and inflight) decodes, and so does every Avro file;
* for layout 2, completion times equal those in the file names;
* the metadata table's timeline, where present, loads as well.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, schema_text
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, State
from hudi_framework.timeline.metadata import ReplaceCommitMetadata
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TimelineTimezone
from hudi_storage_local.backend import LocalStorageBackend
from tests.fixture_tables import FixtureTable, all_fixture_tables

hudi = pytest.importorskip("hudi")

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
TABLES = all_fixture_tables()
_COMPLETED_V2 = re.compile(r"^(\d+)_(\d+)\.(\w+)$")


def _properties(base: Path) -> dict[str, str]:
    # Minimal reading of the keys the timeline needs; HudiTable parses hoodie.properties properly.
    out = {}
    for line in (base / ".hoodie" / "hoodie.properties").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def _load(base: Path) -> Timeline:
    props = _properties(base)
    return Timeline.load(
        LocalStorageBackend(str(base)),
        layout_version=int(props.get("hoodie.timeline.layout.version", "1")),
        timeline_path=props.get("hoodie.timeline.path", "timeline"),
        timezone=TimelineTimezone(props.get("hoodie.table.timeline.timezone", "LOCAL").upper()),
    )


def test_fixtures_cover_every_version_and_table_type() -> None:
    ids = [t.id for t in TABLES]
    for prefix in ("cow/v6", "cow/v8", "cow/v9", "mor/parquet/v6", "mor/avro/v9"):
        assert any(i.startswith(prefix) for i in ids), prefix
    assert any(t.is_lance for t in TABLES)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_completed_write_instants_match_hudi_rs(table: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(table)
    timeline = _load(base)
    ours = {(i.requested_time, i.action.value) for i in timeline.commits_timeline()}
    rs = hudi.HudiTableBuilder.from_base_uri(str(base)).build().get_timeline()
    theirs = {
        (i.timestamp, i.action)
        for getter in (rs.get_completed_commits, rs.get_completed_deltacommits, rs.get_completed_replacecommits)
        for i in getter()
    }
    assert ours == theirs
    assert all(i.action in WRITE_ACTIONS and i.state is State.COMPLETED for i in timeline.commits_timeline())


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_every_instant_file_decodes(table: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(table)
    timeline = _load(base)
    for instant in timeline.commits_timeline(include_pending=True):
        if instant.action in WRITE_ACTIONS:
            md = timeline.read_commit_metadata(instant)
            if instant.is_completed and instant.action is Action.REPLACE_COMMIT:
                assert isinstance(md, ReplaceCommitMetadata)
            if instant.is_completed:
                # Some writes touch no file (an UPDATE matching no row), but every one names its operation.
                assert md.operation_type, instant
    shipped = {n.value: n for n in AvroSchemaName}
    for instant in timeline:
        for state in State:
            try:
                key = timeline.file_key(instant, state)
            except LookupError:
                continue
            data = timeline.storage.read(key)
            if data.startswith(b"Obj\x01"):
                record = read_container(data, path=key)
                assert record.short_name in shipped, key
                if timeline.layout_version == 2:  # Hudi 1.x wrote these: our schemas are its schemas
                    assert record.writer_schema == schema_text(shipped[record.short_name]), key
    timeline.replaced_file_groups()
    timeline.pending_compaction_plans()
    timeline.pending_clustering_plans()


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.id)
def test_completion_times(table: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(table)
    timeline = _load(base)
    completed = timeline.completed()
    assert all(i.completion_time is not None and len(i.completion_time) == 17 for i in completed)
    if timeline.layout_version != 2:
        return
    from_names = {}
    for path in (base / timeline.directory).iterdir():
        m = _COMPLETED_V2.match(path.name)
        if m:
            from_names[m.group(1)] = m.group(2)
    assert {i.requested_time: i.completion_time for i in completed} == from_names
    assert all((i.completion_time or "") >= i.requested_time for i in completed)


def _has_metadata_table(table: FixtureTable) -> bool:
    with zipfile.ZipFile(table.zip_path) as zf:
        return any(n.endswith(".hoodie/metadata/.hoodie/hoodie.properties") for n in zf.namelist())


@pytest.mark.parametrize("table", [t for t in TABLES if _has_metadata_table(t)], ids=lambda t: t.id)
def test_metadata_table_timeline_loads(table: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(table)
    timeline = _load(base / ".hoodie" / "metadata")
    assert timeline.completed({Action.DELTA_COMMIT})
    for instant in timeline.commits_timeline():
        timeline.read_commit_metadata(instant)
