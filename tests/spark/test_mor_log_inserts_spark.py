"""Merge-on-read inserts into log files of small file groups on Spark: executors append the inserts
to the file group's log file, the record index locates them there, the table equals the local
engine's, and the record-level index's fallback (no ``record_index``) finds them in executors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place
from tests.faults.test_mor_log_inserts import RLI, _index, _log_keys, _rows, _snapshot


def _spark_settings(options: dict[str, str]) -> HudiSettings:
    settings = HudiSettings.from_hoodie_options(options, env=False)
    return settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "spark"})})


def _create(path: Path) -> HudiTable:
    from tests.faults.test_mor_log_inserts import _create as create

    return create(Place(str(path), None))


def test_spark_appends_inserts_to_log_files_of_small_file_groups(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.spark import tagging_stage, write_engine
    from hudi_framework.spark.write_engine import SparkWriteClient

    def frame(rows: pa.Table) -> Any:
        return spark.createDataFrame(rows.to_pandas())

    steps = [
        ("insert", _rows(range(20), "sf", 1)),
        ("upsert", pa.concat_tables([_rows(range(20, 30), "sf", 2), _rows(range(5), "sf", 2)])),
        ("upsert", _rows(range(25, 27), "sf", 3)),
        ("delete", _rows(range(27, 29), "sf", 4)),
    ]
    local = tmp_path / "local"
    _create(local)
    remote = tmp_path / "spark"
    _create(remote)
    results = []
    for operation, rows in steps:
        getattr(WriteClient(HudiTable.open(str(local)), HudiSettings.from_hoodie_options(RLI, env=False)), operation)(
            rows
        )
        client = SparkWriteClient(HudiTable.open(str(remote)), _spark_settings(RLI), spark)
        results.append(getattr(client, operation)(frame(rows)))
    table = HudiTable.open(str(remote))
    names = [i.key.rsplit("/", 1)[-1] for i in table.storage.list("sf")]
    bases = [b for n in names if (b := BaseFileName.try_parse(n)) is not None]
    logs = [n for n in names if LogFileName.try_parse(n) is not None]
    assert len(bases) == 1, "the small file group got no new base file version"
    first_log = next(n for n in logs if LogFileName.parse(n).instant_time == results[1].instant.requested_time)
    assert _log_keys(table, f"sf/{first_log}") == {f"k{i:03d}" for i in [*range(20, 30), *range(5)]}
    assert results[1].num_inserts == 10
    expected = _snapshot(HudiTable.open(str(local)))
    assert _snapshot(table) == expected
    assert len(expected) == 28
    assert _index(table, sorted(expected)) == {k: ("sf", bases[0].file_id) for k in expected}
    # Without the record index, the fallback reads the log files' keys in executors (the wide
    # tagging path: the narrow one tags in the pre-combine tasks like the local engine): no duplicate.
    monkeypatch.setattr(write_engine, "narrow_tagging", lambda *a, **k: None)
    original = tagging_stage._log_found
    read_logs: list[bool] = []

    def spied(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        read_logs.append(found is not None)
        return found

    monkeypatch.setattr(tagging_stage, "_log_found", spied)
    no_map = {**RLI, "hoodie.metadata.record.index.enable": "false"}
    SparkWriteClient(HudiTable.open(str(remote)), _spark_settings(no_map), spark).upsert(
        frame(_rows(range(1), "sf", 5))
    )
    SparkWriteClient(HudiTable.open(str(remote)), _spark_settings(no_map), spark).upsert(
        frame(_rows(range(20, 23), "ny", 6))
    )
    after = read_table(HudiTable.open(str(remote)))
    ids = after.column("id").to_pylist()
    assert len(ids) == len(set(ids)) == 28
    assert _snapshot(HudiTable.open(str(remote)))["k021"] == ("sf", 126.0)
    assert read_logs == [True]  # the second write (the first still tagged from the record index)
