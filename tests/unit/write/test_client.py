"""WriteClient (local engine) on copy-on-write tables, checked against hudi-rs and the files on disk."""

from __future__ import annotations

from pathlib import Path

import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import SchemaMismatchError
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

DATA_COLUMNS = ["id", "city", "ts", "v"]


def _batch(ids: list[str], cities: list[str], ts: list[int], v: list[float]) -> pa.Table:
    return pa.table({"id": ids, "city": cities, "ts": pa.array(ts, pa.int64()), "v": v})


def _hudi_rows(base: Path, **options: str) -> list[dict[str, object]]:
    table = hudi.HudiTableBuilder.from_base_uri(str(base)).build()
    read_options = hudi.HudiReadOptions()
    if "as_of" in options:
        read_options = read_options.with_as_of_timestamp(options["as_of"])
    batches = table.read(read_options)
    if not batches:
        return []
    rows = pa.Table.from_batches(batches).select(DATA_COLUMNS).sort_by("id")
    return rows.to_pylist()


def _files_and_timeline(base: Path) -> list[str]:
    return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file())


@pytest.fixture(params=[("city",), ()], ids=["partitioned", "non-partitioned"])
def client(tmp_path: Path, request: pytest.FixtureRequest) -> WriteClient:
    partitions = list(request.param)
    config = new_table_config("t", record_key_fields=["id"], partition_fields=partitions, ordering_fields=["ts"])
    return WriteClient(HudiTable.create(str(tmp_path), config))


def test_upsert_update_delete_match_hudi_rs(client: WriteClient) -> None:
    base = Path(client.table.base_uri)
    first = client.upsert(_batch(["a", "b", "c", "d"], ["sf", "sf", "ny", "ny"], [1, 1, 1, 1], [1.0, 2.0, 3.0, 4.0]))
    assert (first.num_inserts, first.num_updates) == (4, 0)
    # a: newer event time wins; c: older event time loses (EVENT_TIME_ORDERING); e: insert.
    second = client.upsert(_batch(["a", "c", "e"], ["sf", "ny", "la"], [2, 0, 2], [10.0, 30.0, 50.0]))
    assert second.num_inserts == 1
    third = client.delete(pa.table({"id": ["b", "zz"], "city": ["sf", "sf"]}))
    assert third.num_deletes == 1
    assert _hudi_rows(base) == [
        {"id": "a", "city": "sf", "ts": 2, "v": 10.0},
        {"id": "c", "city": "ny", "ts": 1, "v": 3.0},
        {"id": "d", "city": "ny", "ts": 1, "v": 4.0},
        {"id": "e", "city": "la", "ts": 2, "v": 50.0},
    ]
    # Time travel to the first commit sees the first batch only.
    assert [r["id"] for r in _hudi_rows(base, as_of=first.instant.requested_time)] == ["a", "b", "c", "d"]
    assert first.instant.completion_time is not None


def test_duplicates_in_a_batch_are_precombined(client: WriteClient) -> None:
    client.upsert(_batch(["a", "a", "a"], ["sf", "sf", "sf"], [3, 5, 4], [3.0, 5.0, 4.0]))
    assert _hudi_rows(Path(client.table.base_uri)) == [{"id": "a", "city": "sf", "ts": 5, "v": 5.0}]


def test_meta_fields_and_file_names(client: WriteClient) -> None:
    first = client.upsert(_batch(["a", "b"], ["sf", "sf"], [1, 1], [1.0, 2.0]))
    second = client.upsert(_batch(["a"], ["sf"], [2], [9.0]))
    table = client.table.reload()
    (file_slice,) = table.latest_file_slices()
    key = file_slice.base_file_key
    assert key is not None
    rows = pq.read_table(Path(table.base_uri) / key)
    assert rows.column_names[:5] == ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                     "_hoodie_partition_path", "_hoodie_file_name"]  # fmt: skip
    by_key = {r["_hoodie_record_key"]: r for r in rows.to_pylist()}
    # Untouched row b keeps its commit time and sequence number; a carries the new commit.
    assert by_key["b"]["_hoodie_commit_time"] == first.instant.requested_time
    assert by_key["b"]["_hoodie_commit_seqno"].startswith(first.instant.requested_time + "_")
    assert by_key["a"]["_hoodie_commit_time"] == second.instant.requested_time
    assert {r["_hoodie_file_name"] for r in by_key.values()} == {key.rsplit("/", 1)[-1]}
    name = BaseFileName.parse(key.rsplit("/", 1)[-1])
    assert name.instant_time == second.instant.requested_time
    footer = pq.ParquetFile(Path(table.base_uri) / key).metadata.metadata
    assert footer[b"hoodie_min_record_key"] == b"a"
    assert footer[b"hoodie_max_record_key"] == b"b"
    assert b"org.apache.hudi.bloomfilter" in footer


def test_commit_metadata_stats(client: WriteClient) -> None:
    client.upsert(_batch(["a", "b"], ["sf", "sf"], [1, 1], [1.0, 2.0]))
    result = client.upsert(_batch(["a", "c"], ["sf", "sf"], [2, 2], [1.0, 3.0]))
    table = client.table.reload()
    md = table.timeline.read_commit_metadata(result.instant)
    assert md.operation_type == "UPSERT"
    assert "schema" in (md.extra_metadata or {})
    (stat,) = md.write_stats()
    assert (stat.num_writes, stat.num_inserts, stat.num_update_writes, stat.num_deletes) == (3, 1, 1, 0)
    assert stat.prev_commit != "null"
    assert stat.file_size_in_bytes == stat.total_write_bytes > 0


def test_insert_overwrite_and_delete_partition(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    client.upsert(_batch(["a", "b", "c"], ["sf", "sf", "ny"], [1, 1, 1], [1.0, 2.0, 3.0]))
    result = client.insert_overwrite(_batch(["x"], ["sf"], [1], [9.0]))
    assert str(result.instant.action) == "replacecommit"
    assert [r["id"] for r in _hudi_rows(tmp_path)] == ["c", "x"]
    client.delete_partition(["ny"])
    assert [r["id"] for r in _hudi_rows(tmp_path)] == ["x"]
    client.insert_overwrite_table(_batch(["q"], ["la"], [1], [1.0]))
    assert [r["id"] for r in _hudi_rows(tmp_path)] == ["q"]


def test_bad_batches_leave_the_table_unchanged(client: WriteClient) -> None:
    client.upsert(_batch(["a"], ["sf"], [1], [1.0]))
    base = Path(client.table.base_uri)
    before = _files_and_timeline(base)
    required = pa.field("extra", pa.int64(), nullable=False)  # a new column must be nullable
    with pytest.raises(SchemaMismatchError, match="'extra'"):
        client.upsert(_batch(["b"], ["sf"], [1], [1.0]).append_column(required, pa.array([1])))
    with pytest.raises(SchemaMismatchError, match="'ts'"):
        client.upsert(pa.table({"id": ["b"], "city": ["sf"], "ts": [True], "v": [1.0]}))
    with pytest.raises(Exception, match="id"):
        client.upsert(pa.table({"id": pa.array([None], pa.string()), "city": ["sf"], "ts": [1], "v": [1.0]}))
    assert _files_and_timeline(base) == before


def test_a_failing_task_rolls_the_write_back(client: WriteClient, monkeypatch: pytest.MonkeyPatch) -> None:
    client.upsert(_batch(["a", "b"], ["sf", "ny"], [1, 1], [1.0, 2.0]))
    base = Path(client.table.base_uri)
    before = _files_and_timeline(base)
    from hudi_framework.write import client as client_module

    real = client_module.write_target

    def flaky(*args: object, **kwargs: object) -> object:
        # The task writes its file, then dies before reporting: only its marker tells.
        real(*args, **kwargs)  # type: ignore[arg-type]
        raise RuntimeError("injected task failure")

    monkeypatch.setattr(client_module, "write_target", flaky)
    with pytest.raises(RuntimeError, match="injected"):
        client.upsert(_batch(["a", "b", "c"], ["sf", "ny", "la"], [2, 2, 2], [5.0, 6.0, 7.0]))
    assert _files_and_timeline(base) == before
    assert [r["v"] for r in _hudi_rows(base)] == [1.0, 2.0]


def test_small_files_take_inserts(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    client.insert(_batch(["a"], ["sf"], [1], [1.0]))
    client.insert(_batch(["b"], ["sf"], [1], [1.0]))
    slices = client.table.reload().latest_file_slices()
    assert len(slices) == 1  # the second insert went into the small file group
    client.bulk_insert(_batch(["c"], ["sf"], [1], [1.0]))
    assert len(client.table.reload().latest_file_slices()) == 2  # bulk insert opens new file groups


def test_default_settings_write_zstd_base_files_every_reader_reads(tmp_path: Path) -> None:
    import glob

    from hudi_framework.config import HudiSettings
    from hudi_framework.vocabulary import ParquetCodec

    assert HudiSettings().write.parquet_compression_codec is ParquetCodec.ZSTD
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path), config)
    WriteClient(table, HudiSettings()).upsert(pa.table({"id": ["a", "b"], "ts": [1, 2], "v": [1.5, None]}))
    (path,) = glob.glob(str(tmp_path / "*.parquet"))
    meta = pq.ParquetFile(path).metadata
    codecs = {meta.row_group(0).column(i).compression for i in range(meta.num_columns)}
    assert codecs == {"ZSTD"}
    rows = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build().read())
    assert sorted(rows.select(["id", "ts", "v"]).to_pylist(), key=lambda r: r["id"]) == [
        {"id": "a", "ts": 1, "v": 1.5},
        {"id": "b", "ts": 2, "v": None},
    ]


def test_extra_metadata_is_committed_with_the_write_and_cannot_replace_the_schema(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    extra = {"streamer.checkpoint.key.v2": "1700000000000", "schema": "not a schema"}
    result = client.upsert(_batch(["a"], ["sf"], [1], [1.0]), extra_metadata=extra)
    timeline = client.table.reload().timeline
    recorded = timeline.read_commit_metadata(result.instant).extra_metadata or {}
    assert recorded["streamer.checkpoint.key.v2"] == "1700000000000"
    assert '"type": "record"' in recorded["schema"] or '"type":"record"' in recorded["schema"]
    client.delete(_batch(["a"], ["sf"], [2], [0.0]))
    later = client.table.reload().timeline
    last = later.read_commit_metadata(later.completed()[-1]).extra_metadata or {}
    assert "streamer.checkpoint.key.v2" not in last  # only the write that was given it
