"""Writing the metadata table's ``record_index`` (``hoodie.metadata.record.index.enable``), and the
``record-level`` index looking keys up in it:

* after every write (insert, upsert with new keys, a key moving partition, delete) the index holds
  exactly the table's keys, each at the file group that holds it, on copy-on-write and
  merge-on-read tables, built on a new table or on an existing one;
* it has Apache Hudi's ten ``record-index-NNNN-0`` file groups (or the configured count);
* upserts tagged from it equal upserts tagged by reading base files (``global-simple``), and tag
  without opening a data file;
* disabling it drops the partition; the index type alone does not build it (as Apache Hudi).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_storage_local.backend import LocalStorageBackend

RLI_ON = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
}


def _settings(options: dict[str, str]) -> HudiSettings:
    settings = HudiSettings.from_hoodie_options(options, env=False)
    return settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "local"})})


def _create(path: Path, table_type: str) -> HudiTable:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(str(path), config)


def _rows(ids: range, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i:03d}", "city": city, "ts": ts, "v": float(i)} for i in ids])


def _snapshot(path: Path) -> pa.Table:
    return read_table(HudiTable.open(str(path))).sort_by("id")


def _check_index(path: Path) -> int:
    """The record index holds exactly the snapshot's keys, each at its file group and partition."""
    table = HudiTable.open(str(path))
    assert "record_index" in table.properties["hoodie.table.metadata.partitions"].split(",")
    snapshot = read_table(table)
    mdt = MetadataTable.open(LocalStorageBackend(str(path)), table.properties)
    assert mdt is not None
    probe = pa.concat_arrays([snapshot.column("id").combine_chunks(), pa.array(["never-written"])])
    found = mdt.record_index(probe)
    where = {
        r["record_key"]: (r["partition_path"], r["file_id"])
        for r in found.select(["record_key", "partition_path", "file_id"]).to_pylist()
    }
    assert set(where) == set(snapshot.column("id").to_pylist())
    for key, partition, name in zip(
        snapshot.column("id").to_pylist(),
        snapshot.column("_hoodie_partition_path").to_pylist(),
        snapshot.column("_hoodie_file_name").to_pylist(),
        strict=True,
    ):
        assert where[key][0] == partition, key
        assert name.lstrip(".").startswith(where[key][1]), (key, name, where[key])
    return len(mdt.record_index_slices())


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_the_record_index_follows_every_write(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), _settings(RLI_ON))
    client.insert(pa.concat_tables([_rows(range(0, 30), "sf", 1), _rows(range(30, 50), "ny", 1)]))
    assert _check_index(path) == 10
    # Updates, new keys, and k005 arriving in another partition (the index keeps it in sf).
    client.upsert(
        pa.concat_tables([_rows(range(0, 10), "sf", 2), _rows(range(50, 60), "la", 2), _rows(range(5, 6), "la", 3)])
    )
    _check_index(path)
    assert _snapshot(path).filter(pc.equal(pc.field("id"), "k005")).column("city").to_pylist() == ["la"]
    client.delete(_rows(range(20, 25), "sf", 4))
    _check_index(path)
    assert _snapshot(path).num_rows == 55
    # A deleted key comes back as a new key, in the partition it arrives with.
    client.upsert(_rows(range(20, 21), "la", 5))
    _check_index(path)
    assert _snapshot(path).filter(pc.equal(pc.field("id"), "k020")).column("_hoodie_partition_path").to_pylist() == [
        "la"
    ]


def test_the_record_index_is_built_on_an_existing_table_and_dropped_when_disabled(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = _create(path, "COPY_ON_WRITE")
    WriteClient(table, _settings({"hoodie.metadata.enable": "true"})).insert(_rows(range(40), "sf", 1))
    options = {**RLI_ON, "hoodie.metadata.record.index.min.filegroup.count": "3",
               "hoodie.metadata.record.index.max.filegroup.count": "3"}  # fmt: skip
    WriteClient(HudiTable.open(str(path)), _settings(options)).upsert(_rows(range(35, 45), "ny", 2))
    assert _check_index(path) == 3
    # The index type alone keeps no record_index: Apache Hudi needs the metadata option too.
    WriteClient(
        HudiTable.open(str(path)), _settings({"hoodie.metadata.enable": "true", "hoodie.index.type": "RECORD_INDEX"})
    ).upsert(_rows(range(0, 5), "sf", 3))
    listed = load_properties(LocalStorageBackend(str(path)))["hoodie.table.metadata.partitions"].split(",")
    assert "record_index" not in listed
    assert not [p for p in (path / ".hoodie" / "metadata" / "record_index").rglob("*") if p.is_file()]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_upserts_tagged_from_the_record_index_equal_those_tagged_from_base_files(
    tmp_path: Path, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps = [
        ("insert", pa.concat_tables([_rows(range(0, 30), "sf", 1), _rows(range(30, 50), "ny", 1)])),
        ("upsert", pa.concat_tables([_rows(range(10, 40), "sf", 2), _rows(range(60, 70), "ny", 2)])),
        ("upsert", pa.concat_tables([_rows(range(0, 5), "la", 3), _rows(range(45, 65), "ny", 3)])),
        ("delete", _rows(range(25, 35), "ny", 4)),
        # Deleted keys are not upserted again: on merge-on-read a base-file index still finds a key
        # deleted in a log (and revives it where it was), the record index does not.
        ("upsert", _rows(range(36, 45), "sf", 5)),
    ]
    keyed = WriteClient(_create(tmp_path / "keyed", table_type), _settings(RLI_ON))
    plain = WriteClient(
        _create(tmp_path / "plain", table_type),
        _settings({"hoodie.metadata.enable": "true", "hoodie.index.type": "GLOBAL_SIMPLE",
                   "hoodie.simple.index.update.partition.path": "false"}),
    )  # fmt: skip
    import hudi_index_record.index as record_level

    opened: list[str] = []
    original = record_level.open_base_file

    def counting(storage, file):  # type: ignore[no-untyped-def]
        opened.append(file.path)
        return original(storage, file)

    for operation, rows in steps:
        monkeypatch.setattr(record_level, "open_base_file", counting)
        getattr(keyed, operation)(rows)
        monkeypatch.undo()
        getattr(plain, operation)(rows)
    assert opened == []
    data = ["id", "city", "ts", "v", "_hoodie_record_key", "_hoodie_partition_path"]
    assert (
        _snapshot(tmp_path / "keyed").select(data).to_pylist() == _snapshot(tmp_path / "plain").select(data).to_pylist()
    )
    _check_index(tmp_path / "keyed")
