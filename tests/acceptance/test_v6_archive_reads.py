"""Reads that reach archived instants of a table version 6, against a model of every commit.

30 writes (inserts, upserts, deletes) on copy-on-write and merge-on-read tables; the oldest 20 are
then archived (appended to the ``archived/`` commits log and removed from the active timeline, as
Apache Hudi's archiver does). The snapshot, a time travel to an archived instant, and incremental
windows reaching into the archive must equal the model; with cleaning on, a time travel to an archived
instant whose files were cleaned raises instead of returning other rows. On local disk and on S3
(moto).
"""

from __future__ import annotations

import importlib
import uuid
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.errors import CleanedInstantError
from hudi_framework.read.archived import archived_instants
from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_framework.timeline.instant import Action
from tests.acceptance.archiving import archive_oldest
from tests.faults.s3_faults import hudi_rs, rows_of

N_COMMITS = 30
KEEP = 10
CITIES = ("sf", "ny")
Row = tuple[str, int, str]  # city, ts, value
Model = dict[str, tuple[Row, str]]  # key -> (row, commit time of its latest write)


@pytest.fixture(params=["local", "s3"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, Any] | None]:
    if request.param == "local":
        return str(tmp_path / "t"), None
    endpoint: str = request.getfixturevalue("endpoint")
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    bucket = f"hudi-v6arch-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/t", {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}


def _rows(keys: list[int], step: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{k:03d}" for k in keys],
            "city": [CITIES[k % len(CITIES)] for k in keys],
            "ts": pa.array([step] * len(keys), pa.int64()),
            "val": [f"v{k}-{step}" for k in keys],
        }
    )


def _write_history(table: HudiTable, options: dict[str, str]) -> list[tuple[str, Model]]:
    """Write the commits; the model after each, with its instant (requested time)."""
    client = WriteClient(table, HudiSettings.from_hoodie_options(options, env=False))
    model: Model = {}
    history: list[tuple[str, Model]] = []
    for step in range(N_COMMITS):
        if step == 0:
            keys, op = list(range(12)), "insert"
        elif step % 6 == 3:
            keys, op = [step % 12, (step + 5) % 12], "delete"
        else:
            keys, op = [step % 12, (step + 1) % 12, 100 + step], "upsert"
        rows = _rows(keys, step)
        result = client.write(rows, op)
        instant = result.instant.requested_time
        model = dict(model)
        for key, city, ts, val in zip(*(rows[c].to_pylist() for c in ("id", "city", "ts", "val")), strict=True):
            if op == "delete":
                model.pop(key, None)
            else:
                model[key] = ((city, ts, val), instant)
        history.append((instant, model))
    return history


def _as_model(table: pa.Table) -> Model:
    cols = [table[c].to_pylist() for c in ("id", "city", "ts", "val", "_hoodie_commit_time")]
    out: Model = {}
    for key, city, ts, val, commit in zip(*cols, strict=True):
        assert key not in out, f"key {key} read twice"
        out[key] = ((city, ts, val), commit)
    return out


def _table(location: tuple[str, dict[str, Any] | None], table_type: str) -> HudiTable:
    uri, storage_options = location
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        table_type=table_type, version=6,
    )  # fmt: skip
    return HudiTable.create(uri, config, storage_options=storage_options)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_reads_across_the_archive_equal_the_model(location: tuple[str, dict[str, Any] | None], table_type: str) -> None:
    table = _table(location, table_type)
    history = _write_history(table, {"hoodie.clean.automatic": "false"})
    archived = archive_oldest(table, keep=KEEP)
    table = table.reload()
    assert len(archived) == N_COMMITS - KEEP
    assert [a.requested_time for a in archived_instants(table)] == [i.requested_time for i in archived]
    assert table.timeline.commits_timeline()[0].requested_time == history[N_COMMITS - KEEP][0]

    # The latest snapshot still counts the archived commits' files as committed; hudi-rs agrees.
    latest = read_table(table)
    assert _as_model(latest) == history[-1][1]
    uri, storage_options = location
    endpoint = storage_options["endpoint_url"] if storage_options else None
    assert hudi_rs(uri, endpoint) == rows_of(latest)
    # Time travel to archived instants: the table as each left it.
    for index in (0, 4, 13, N_COMMITS - KEEP - 1):
        instant, expected = history[index]
        assert _as_model(read_table(table, as_of=instant)) == expected, f"as of commit {index}"
    # Incremental windows (v6: requested times in (begin, end]) starting in the archive.
    for first, last in ((2, 15), (5, 25), (0, N_COMMITS - 1)):
        begin, end = history[first][0], history[last][0]
        expected = {k: v for k, v in history[last][1].items() if begin < v[1] <= end}
        got = read_table(table, query_type="incremental", begin=begin, end=end)
        assert _as_model(got) == expected, f"window ({first}, {last}]"


# On S3 with HUDI_TEST_S3=full only: the archive's reads on S3 are the test above's, the refusal of
# cleaned instants on S3 is tests/faults/test_time_travel_cleaned.py's.
@pytest.mark.s3_full
def test_time_travel_to_cleaned_archived_instants_raises(location: tuple[str, dict[str, Any] | None]) -> None:
    table = _table(location, "COPY_ON_WRITE")
    history = _write_history(table, {"hoodie.clean.commits.retained": "3"})
    archive_oldest(table, keep=KEEP)
    table = table.reload()
    assert _as_model(read_table(table)) == history[-1][1]
    with pytest.raises(CleanedInstantError) as raised:
        read_table(table, as_of=history[2][0])
    assert raised.value.as_of == history[2][0]


def _lsm_available() -> bool:
    try:
        importlib.import_module("hudi_framework.timeline.lsm")
    except ModuleNotFoundError:
        return False
    return True


@pytest.mark.skipif(not _lsm_available(), reason="the layout-2 archive (hudi_framework.timeline.lsm) is not here")
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_v8_reads_across_the_lsm_archive_equal_the_model(tmp_path: Path, table_type: str) -> None:
    """The same through the LSM history of a table version 8: incremental windows by completion time."""
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        table_type=table_type, version=8,
    )  # fmt: skip
    table = HudiTable.create(str(tmp_path / "t"), config)
    history = _write_history(table, {"hoodie.clean.automatic": "false"})
    completion = {i.requested_time: i.completion_time for i in table.reload().timeline.commits_timeline()}
    archive_oldest(table, keep=KEEP)
    table = table.reload()
    assert [a.completion_time for a in archived_instants(table)] == [
        completion[t] for t, _ in history[: N_COMMITS - KEEP]
    ]
    assert _as_model(read_table(table)) == history[-1][1]
    for index in (0, 13):
        instant, expected = history[index]
        assert _as_model(read_table(table, as_of=instant)) == expected, f"as of commit {index}"
    for first, last in ((2, 15), (5, 25)):
        begin, end = completion[history[first][0]], completion[history[last][0]]
        window = (history[first][0], history[last][0])
        # Without fallback, the window's records as of its end; Java's fallback scans the latest
        # snapshot and keeps the records the window's instants wrote last.
        for fallback, state in (("false", history[last][1]), ("true", history[-1][1])):
            expected = {k: v for k, v in state.items() if window[0] < v[1] <= window[1]}
            options = {"hoodie.datasource.read.incr.fallback.fulltablescan.enable": fallback}
            got = read_table(table, query_type="incremental", begin=begin, end=end, options=options)
            assert _as_model(got) == expected, f"window ({first}, {last}], fallback {fallback}"


def test_time_travel_past_archived_cleans_raises(tmp_path: Path) -> None:
    """Every clean is archived and the active timeline has none: Java's check (the latest active
    clean's retained commit) cannot refuse, but the archived cleans name the files they deleted, so a
    time travel to an instant whose files are gone raises instead of returning other rows."""
    table = _table((str(tmp_path / "t"), None), "COPY_ON_WRITE")
    history = _write_history(table, {"hoodie.clean.commits.retained": "2"})
    # The last writes do not clean: every clean is older than the commits kept active.
    rest = WriteClient(table.reload(), HudiSettings.from_hoodie_options({"hoodie.clean.automatic": "false"}, env=False))
    for step in range(N_COMMITS, N_COMMITS + KEEP):
        rest.upsert(_rows([step % 12], step))
    archive_oldest(table, keep=KEEP)
    table = table.reload()
    assert not table.timeline.completed({Action.CLEAN})
    assert any(a.action == "clean" for a in archived_instants(table))
    with pytest.raises(CleanedInstantError) as raised:
        read_table(table, as_of=history[1][0])
    assert "clean" in raised.value.reason
    # A commit whose files are all still there reads as it was.
    instant, expected = history[-1]
    assert _as_model(read_table(table, as_of=instant)) == expected
