"""The LSM timeline format: round trip, snapshot versions, layer compaction, crash points, dedupe."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import LsmTimelineError
from hudi_framework.timeline.archive import ArchivedInstant, archive_format
from hudi_framework.timeline.lsm import LsmArchive, compacted_file_name, lsm_file_name
from hudi_storage_local.backend import LocalStorageBackend

HISTORY = ".hoodie/timeline/history"


def _instant(n: int, action: str = "commit") -> ArchivedInstant:
    t = f"2026112810{n:07d}"
    plan = f"plan-{n}".encode() if n % 2 else None
    return ArchivedInstant(t, f"2026112811{n:07d}", action, f"meta-{n}".encode(), plan)


def _archive(tmp_path: Path, batch: int = 10) -> LsmArchive:
    return LsmArchive(LocalStorageBackend(str(tmp_path)), HISTORY, compaction_batch_size=batch)


def _history(tmp_path: Path) -> Path:
    return tmp_path / HISTORY


def test_factory_loads_lsm_for_layout_2(tmp_path: Path) -> None:
    archive = archive_format(LocalStorageBackend(str(tmp_path)), 2, HISTORY)
    assert isinstance(archive, LsmArchive)
    assert archive.read() == []


def test_round_trip_and_files_as_java_writes_them(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    batch = [_instant(3), _instant(1), _instant(2, "clean")]
    archive.append(batch)
    assert archive.read() == sorted(batch, key=lambda i: i.requested_time)
    names = sorted(p.name for p in _history(tmp_path).iterdir())
    data = lsm_file_name(_instant(1).requested_time, _instant(3).requested_time, 0)
    assert names == [data, "_version_", "manifest_1"]
    assert (_history(tmp_path) / "_version_").read_text() == "1"
    size = (_history(tmp_path) / data).stat().st_size
    assert (_history(tmp_path) / "manifest_1").read_text() == (
        '{\n  "files" : [ {\n    "fileName" : "' + data + '",\n    "fileLen" : ' + str(size) + "\n  } ]\n}"
    )
    f = pq.ParquetFile(_history(tmp_path) / data)
    assert f.schema_arrow.names == ["instantTime", "completionTime", "action", "metadata", "plan", "version"]
    assert json.loads(f.metadata.metadata[b"parquet.avro.schema"])["name"] == "HoodieLSMTimelineInstant"
    assert f.metadata.row_group(0).column(0).compression == "GZIP"
    assert f.read().column("version").to_pylist() == [1, 1, 1]


def test_each_append_is_a_new_version(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    archive.append([_instant(1)])
    archive.append([_instant(2), _instant(3)])
    assert archive.latest_version() == 2
    assert [len(archive.manifest(v)) for v in (1, 2)] == [1, 2]
    assert [i.requested_time for i in archive.read()] == [_instant(n).requested_time for n in (1, 2, 3)]


def test_layer_compaction_merges_a_full_layer_and_cleans(tmp_path: Path) -> None:
    archive = _archive(tmp_path, batch=3)
    for n in range(1, 10):
        archive.append([_instant(n)])
    files = archive.manifest()
    # 9 appends with batch 3: three L0 groups became three L1 files, which became one L2 file.
    assert [f.layer for f in files] == [2]
    assert files[0].name == compacted_file_name(
        [lsm_file_name(_instant(1).requested_time, _instant(3).requested_time, 1),
         lsm_file_name(_instant(7).requested_time, _instant(9).requested_time, 1)]
    )  # fmt: skip
    assert archive.read() == [_instant(n) for n in range(1, 10)]
    parquet = sorted(p.name for p in _history(tmp_path).glob("*.parquet"))
    referenced = {f.name for v in archive.versions() for f in archive.manifest(v)}
    assert set(parquet) == referenced  # files no retained manifest names were cleaned
    assert len(archive.versions()) <= 3 + 2


def test_file_without_manifest_is_invisible_and_replaced(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    archive.append([_instant(1)])
    # A writer died after writing its Parquet file, before the manifest: nothing changes for readers.
    orphan = lsm_file_name(_instant(2).requested_time, _instant(3).requested_time, 0)
    (_history(tmp_path) / orphan).write_bytes(b"half a parquet file")
    assert archive.read() == [_instant(1)]
    archive.append([_instant(2), _instant(3)])  # the retry replaces it
    assert archive.read() == [_instant(n) for n in (1, 2, 3)]


def test_manifest_without_version_file_is_found_by_listing(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    archive.append([_instant(1)])
    archive.append([_instant(2)])
    (_history(tmp_path) / "_version_").unlink()
    assert archive.latest_version() == 2
    assert len(archive.read()) == 2
    archive.append([_instant(3)])
    assert archive.latest_version() == 3


def test_reappending_archived_instants_does_not_duplicate_them(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    archive.append([_instant(1), _instant(2)])
    archive.append([_instant(1), _instant(2)])  # same file: already committed, nothing new
    assert archive.latest_version() == 1
    archive.append([_instant(2), _instant(3)])  # overlapping batch: read keeps each instant once
    assert archive.read() == [_instant(n) for n in (1, 2, 3)]


def test_corrupt_manifest_is_a_typed_error(tmp_path: Path) -> None:
    archive = _archive(tmp_path)
    archive.append([_instant(1)])
    (_history(tmp_path) / "manifest_1").write_text("{ not json")
    with pytest.raises(LsmTimelineError, match="manifest_1"):
        archive.read()


def test_batch_size_below_two_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LsmTimelineError, match="batch size"):
        _archive(tmp_path, batch=1)
