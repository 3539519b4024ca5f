"""Every process of a write loads the plugins its settings' ``plugins`` section describes.

A table opened without settings gets the plugin manager of default settings. A write with settings
that disable a plugin must then refuse a component of that plugin in the driver exactly as its
Spark executors refuse it (they build their plugins from the write's settings), rather than run it
on the driver only. The Spark data source resolves its settings (``HUDI_PLUGINS__*`` included)
once on the driver; its driver path refuses the disabled plugin as well.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import UnknownComponentError
from hudi_framework.plugin import ComponentKind
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.worker import WorkerSpec, worker_components
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_framework.write.session import WriteSession
from tests.faults.s3_faults import Place

ROWS = pa.table({"id": ["a", "b"], "ts": [1, 2], "v": [1.0, 2.0]})


def _settings(*disabled: str) -> HudiSettings:
    return HudiSettings(
        table={"record_key_fields": ["id"], "ordering_fields": ["ts"]},
        index={"type": "bloom"},
        plugins={"disable": list(disabled)},
    )


def _table(place: Place) -> HudiTable:
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"])
    HudiTable.create(place.uri, config, storage_options=place.options)
    return place.open()  # no settings, no plugin manager: default plugins


def _files(table: HudiTable) -> set[str]:
    return {info.key for info in table.storage.list("", recursive=True)}


def test_driver_refuses_a_disabled_plugin_as_executors_do(place: Place) -> None:
    table = _table(place)
    before = _files(table)
    settings = _settings("index-bloom")

    with pytest.raises(UnknownComponentError) as executor:
        worker_components(WorkerSpec.of(table, settings))
    with pytest.raises(UnknownComponentError) as driver:
        WriteClient(table, settings).upsert(ROWS)

    assert "no index named 'bloom'" in str(executor.value)
    assert str(driver.value) == str(executor.value)
    assert _files(table) == before, "a refused write leaves the table as it was"


def test_driver_and_executors_agree_when_the_plugin_is_loaded(place: Place) -> None:
    table = _table(place)
    settings = _settings()
    worker = worker_components(WorkerSpec.of(table, settings)).write
    client = WriteClient(table, settings)
    assert type(client.session.components.index) is type(worker.index)
    assert client.upsert(ROWS).num_writes == 2


def test_data_source_driver_refuses_a_plugin_disabled_by_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path)
    HudiTable.create(path, new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"]))
    monkeypatch.setenv("HUDI_PLUGINS__DISABLE", '["index-bloom"]')
    options = SourceOptions.parse({"path": path, "hoodie.index.type": "BLOOM", "hoodie.table.name": "t"})
    assert options.settings.plugins.disable == ("index-bloom",)
    table = options.open_table()

    with pytest.raises(UnknownComponentError) as executor:
        worker_components(WorkerSpec.of(table, options.settings))
    with pytest.raises(UnknownComponentError) as driver:
        WriteSession(table, options.settings)
    assert str(driver.value) == str(executor.value)
    assert "bloom" not in table.registry.names(ComponentKind.INDEX)
