"""A data file the timeline names but storage lacks (deleted by hand, lost), on local disk and on S3.

The file-system view is built from a listing, so without a cross-check against the commit metadata a
lost file is invisible: the previous version of its file group is served instead (or the group
vanishes), and the next upsert merges into those stale rows. Reads and writes must refuse with a
typed error naming the file, and a refused write must leave the table exactly as it was.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import MissingDataFileError
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_services_compaction import CompactionService
from tests.faults.s3_faults import Place, Rows, expected, hudi_rs, ours, rows_of, snapshot

#: Updates of merge-on-read tables go to log files (small-file handling would rewrite base files).
LOGS = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"}, env=False)
AFTER_TWO: Rows = [("a", "sf", 2), ("b", "ny", 1), ("c", "sf", 2)]
TABLES = [("COPY_ON_WRITE", 8), ("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9), ("MERGE_ON_READ", 6)]


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def _client(place: Place, table_type: str, version: int) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options), LOGS)
    client.insert(_batch([("a", "sf", 1), ("b", "ny", 1)]))
    client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))
    return client


def _slice_of_a(place: Place, as_of: str | None = None) -> FileSlice:
    """The slice holding key ``a`` (updated by every upsert), as of an instant."""
    table = place.open()
    rows = read_table(table, as_of=as_of, filters=[("id", "=", "a")]).to_pylist()
    name = rows[0]["_hoodie_file_name"]
    parsed = parse_data_file_name(name)
    file_id = parsed.file_id if parsed is not None else name  # log records carry the bare file id
    (found,) = [s for s in table.latest_file_slices(partition="sf", as_of=as_of) if s.file_id == file_id]
    return found


def _state(place: Place) -> set[tuple[str, int]]:
    """Every object of the table (data and metadata) with its size."""
    return {(i.key, i.size) for i in place.open().storage.list("", recursive=True)}


def _refused(place: Place, key: str) -> None:
    """Snapshot read and upsert both name ``key``; the upsert changed nothing."""
    with pytest.raises(MissingDataFileError) as read_error:
        ours(place.uri, place.options)
    assert read_error.value.key == key
    assert key in str(read_error.value)
    before = _state(place)
    with pytest.raises(MissingDataFileError) as write_error:
        WriteClient(place.open(), LOGS).upsert(_batch([("a", "sf", 3), ("d", "sf", 3)]))
    assert write_error.value.key == key
    assert _state(place) == before, "the failed upsert left the table untouched"


@pytest.mark.parametrize(("table_type", "version"), TABLES)
def test_lost_base_file_of_the_latest_slice(place: Place, table_type: str, version: int) -> None:
    _client(place, table_type, version)
    key = _slice_of_a(place).base_file_key
    assert key is not None
    place.open().storage.delete(key)
    _refused(place, key)
    # Only the partitions read are checked: ny is intact.
    ny = read_table(place.open(), filters=[("city", "=", "ny")])
    assert rows_of(ny) == [("b", "ny", 1)]


@pytest.mark.parametrize("version", [9, 6])
def test_lost_log_file_of_a_completed_delta_commit(place: Place, version: int) -> None:
    _client(place, "MERGE_ON_READ", version)
    latest = _slice_of_a(place)
    assert latest.log_file_keys, "the update went to a log file"
    key = latest.log_file_keys[-1]
    place.open().storage.delete(key)
    _refused(place, key)


def test_compaction_is_not_planned_over_a_lost_file(place: Place) -> None:
    """Compacting what is left of the slice would make the loss permanent (and look consistent)."""
    _client(place, "MERGE_ON_READ", 9)
    key = _slice_of_a(place).base_file_key
    assert key is not None
    place.open().storage.delete(key)
    before = _state(place)
    with pytest.raises(MissingDataFileError, match=re.escape(key)):
        CompactionService().schedule(place.open())
    assert _state(place) == before, "no compaction plan written"


def test_lost_file_group(place: Place) -> None:
    """The only file of a group: without the check the group (and its rows) silently vanishes."""
    _client(place, "COPY_ON_WRITE", 8)
    (ny,) = place.open().latest_file_slices(partition="ny")
    assert ny.base_file_key is not None
    place.open().storage.delete(ny.base_file_key)
    _refused(place, ny.base_file_key)


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
def test_time_travel_needs_the_files_of_its_slice(place: Place, table_type: str, version: int) -> None:
    client = _client(place, table_type, version)
    timeline = client.table.reload().timeline
    middle = timeline.commits_timeline()[-1].requested_time
    written = {s.path for s in timeline.read_commit_metadata(timeline.commits_timeline()[-1]).write_stats()}
    client.upsert(_batch([("a", "sf", 3)]))
    if table_type == "MERGE_ON_READ":  # a new slice, so the middle commit's log file is no longer read
        compaction = CompactionService()
        instant = compaction.schedule(place.open())
        assert instant is not None
        compaction.run(place.open(), instant)
    first = client.table.reload().timeline.commits_timeline()[0].requested_time
    # The file written by the middle commit that the snapshot as of it reads (a newer slice replaces it).
    then = _slice_of_a(place, middle)
    (key,) = {then.base_file_key, *then.log_file_keys} & written
    now = _slice_of_a(place)
    assert key not in [now.base_file_key, *now.log_file_keys], "not part of the latest snapshot"
    place.open().storage.delete(key)
    with pytest.raises(MissingDataFileError) as error:
        read_table(place.open(), as_of=middle)
    assert error.value.key == key
    # The latest snapshot and older instants do not need it.
    latest = [("a", "sf", 3), ("b", "ny", 1), ("c", "sf", 2)]
    assert snapshot(place.uri, place.endpoint, place.options) == expected(latest)
    assert rows_of(read_table(place.open(), as_of=first)) == [("a", "sf", 1), ("b", "ny", 1)]


def test_intact_table_reads_as_hudi_rs(place: Place) -> None:
    """The control: nothing lost, nothing refused."""
    _client(place, "MERGE_ON_READ", 9)
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == AFTER_TWO
