"""The metadata table (MDT) writer keeps several partitions of several file groups in step: a partition
enabled on an existing MDT gets its own init instant and is listed only once built; every data instant
writes one MDT delta commit over all kept partitions, each key in the file group Java routes it to; a
rollback removes the instant's logs in every partition; compaction gives every file group with logs a
base file; a partition turned off is dropped while ``files`` stays. On local disk and on S3 (moto)."""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.metadata_writer.file_groups import partition_dir
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import rollback_latest_commit
from tests.faults.mdt_probe_partition import PROBE, PROBE_FILE_GROUPS, ProbeSwitch, probe
from tests.faults.s3_faults import Place

__all__ = ["probe"]


def _settings(**options: str) -> HudiSettings:
    return HudiSettings.from_hoodie_options({"hoodie.metadata.enable": "true", **options}, env=False)


def _rows(ids: str, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "city": city, "ts": ts} for i in ids])


def _data_files(table: HudiTable) -> set[str]:
    view = table.file_system_view()
    return {
        name
        for p in view.partitions
        for s in view.latest_file_slices(p)
        for name in ([s.base_file_name] if s.base_file_name else []) + list(s.log_file_names)
    }


def _probe_state(table: HudiTable) -> tuple[MetadataTable, set[str]]:
    """The MDT, and the file names the probe partition holds for the table's latest files."""
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline)
    assert validate_files(table.storage, table.timeline, table.properties).ok
    found = mdt.record_index(sorted(_data_files(table)))
    assert found.column("record_key").to_pylist() == found.column("file_id").to_pylist()
    return mdt, set(found.column("record_key").to_pylist())


def _probe_files(table: HudiTable) -> list[str]:
    return [i.name for i in table.storage.list(partition_dir(PROBE))]


def test_several_partitions_and_file_groups_stay_in_step(place: Place, probe: ProbeSwitch) -> None:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    client = WriteClient(table, _settings(**{"hoodie.metadata.compact.max.delta.commits": "6"}))
    client.insert(_rows("abcd", "sf", 1))
    client.insert(_rows("efgh", "ny", 1))
    table = place.open()
    assert table.config.metadata_partitions == ("files",)
    assert _probe_files(table) == []

    # Enabled on an existing MDT: its own init instant, built from the latest file slices.
    probe.on = True
    client.upsert(_rows("ai", "sf", 2))
    table = place.open()
    assert table.config.metadata_partitions == ("files", PROBE)
    mdt, held = _probe_state(table)
    inits = [i.requested_time for i in mdt.timeline.completed() if i.requested_time.startswith("0000")]
    assert inits == ["00000000000000000", "00000000000000001"]
    init_logs = sorted(n for n in _probe_files(table) if n.endswith("_00000000000000001.log.1_0-0-0"))
    assert init_logs == [f".record-index-000{i}-0_00000000000000001.log.1_0-0-0" for i in range(PROBE_FILE_GROUPS)]
    assert held == _data_files(table)

    # The upsert's delta commit: one log file per touched file group, each key where Java routes it.
    upsert = table.timeline.completed()[-1].requested_time
    (delta,) = [i for i in mdt.timeline.completed() if i.requested_time == upsert]
    written = mdt.timeline.read_commit_metadata(delta).partition_to_write_stats or {}
    assert sorted(written) == ["files", PROBE]
    for name in _probe_files(table):
        log = LogFileName.try_parse(name)
        if log is not None and log.instant_time == upsert:
            assert log.file_id.startswith("record-index-000")

    # A rollback deletes the instant's logs in every partition.
    client.upsert(_rows("aj", "sf", 3))
    last = place.open().timeline.completed()[-1].requested_time
    assert any(last in n for n in _probe_files(place.open()))
    rollback_latest_commit(place.open())
    table = place.open()
    assert not any(last in n for n in _probe_files(table))
    assert not [n for n in (i.name for i in table.storage.list(partition_dir("files"))) if last in n]
    _, held = _probe_state(table)
    assert held == _data_files(table)

    # Compaction: every file group with logs gets a base file at the compaction instant.
    for ts in (4, 5, 6):
        client.upsert(_rows("e", "ny", ts))
    table = place.open()
    mdt, held = _probe_state(table)
    (compaction,) = mdt.timeline.completed({Action.COMMIT})
    bases = {
        b.file_id
        for b in (BaseFileName.try_parse(n) for n in _probe_files(table))
        if b is not None and b.instant_time == compaction.requested_time
    }
    assert bases == {f"record-index-000{i}-0" for i in range(PROBE_FILE_GROUPS)}
    assert held == _data_files(table)  # the reader looks a key up only in the file group it hashes to
    assert sorted((r["id"], r["ts"]) for r in read_table(table).to_pylist()) == [
        ("a", 2), ("b", 1), ("c", 1), ("d", 1), ("e", 6), ("f", 1), ("g", 1), ("h", 1), ("i", 2),
    ]  # fmt: skip

    # Turned off: dropped (properties first, then its files); files stays in step.
    probe.on = False
    client.upsert(_rows("k", "la", 7))
    table = place.open()
    assert table.config.metadata_partitions == ("files",)
    assert _probe_files(table) == []
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline)
    assert validate_files(table.storage, table.timeline, table.properties).ok
