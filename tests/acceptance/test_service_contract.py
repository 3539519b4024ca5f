"""The table service contract: the shipped services stand on it alone, and another plugin can replace one.

* the compaction and cleaning plugins import only public modules (the contract among them);
* a service's options are its own model of plain values, built from its settings section (no
  settings object handed over);
* the kernel finds a service by the name its settings give: a compaction service written against
  the contract only (its own strategy, the kernel's machinery) runs inline after a write.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import open_table_service, table_service_host
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.compaction import CandidateT
from hudi_framework.contracts.service import TableService, TableServiceHost
from hudi_framework.errors import ConfigError, PluginConfigError, TableError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import decode_compaction_plan
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_services_cleaning import CleanService
from hudi_services_compaction import CompactionService

ROOT = Path(__file__).resolve().parents[2]
#: Modules a plugin may import: the public API (exact) and the public packages (with submodules).
PUBLIC_MODULES = {"hudi_framework", "hudi_framework.plugin", "hudi_framework.spark"}
PUBLIC_PACKAGES = (
    "hudi_framework.contracts",
    "hudi_framework.errors",
    "hudi_framework.testing",
    "hudi_framework.vocabulary",
)


def _imported(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
    return out


def _public(module: str) -> bool:
    return module in PUBLIC_MODULES or any(module == p or module.startswith(f"{p}.") for p in PUBLIC_PACKAGES)


@pytest.mark.parametrize("plugin", ["hudi_services_compaction", "hudi_services_cleaning"])
def test_service_plugins_import_only_public_modules(plugin: str) -> None:
    files = sorted((ROOT / "plugins" / plugin).glob("*.py"))
    assert files
    kernel = {m for f in files for m in _imported(f) if m.split(".")[0] == "hudi_framework" and not _public(m)}
    assert sorted(kernel) == []


def test_service_options_are_plain_values_from_their_settings_section(registry: ComponentRegistry) -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "hoodie.compaction.target.io": "77",
            "hoodie.compaction.strategy": "org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy",
            "hoodie.compact.inline.max.delta.commits": "3",
            "hoodie.cleaner.commits.retained": "4",
            "hoodie.clean.automatic": "false",
        }
    )
    options = settings.services.compaction.service_options()
    assert options == {"target_io_mb": 77, "strategy": {"name": "unbounded"}}  # the trigger stays the kernel's
    compaction = registry.build(ComponentKind.SERVICE, "compaction", options)
    assert isinstance(compaction, CompactionService)
    assert (compaction.options.target_io_mb, compaction.options.strategy.name) == (77, "unbounded")
    assert compaction.options.logfile_num_threshold == 0  # unset: the service's own default
    clean = registry.build(ComponentKind.SERVICE, "clean", settings.services.clean.service_options())
    assert isinstance(clean, CleanService)
    assert (clean.options.commits_retained, clean.options.policy) == (4, "KEEP_LATEST_COMMITS")
    for name in ("compaction", "clean"):
        model = registry.get(ComponentKind.SERVICE, name).spec.load_options_model()
        assert not model.model_config.get("arbitrary_types_allowed")
        with pytest.raises(PluginConfigError, match="settings"):
            registry.build(ComponentKind.SERVICE, name, {"settings": HudiSettings()})


class _FirstGroupOnly:
    """A strategy no shipped plugin has: the first candidate file group by partition and file id."""

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        return list(partitions)

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        return sorted(operations, key=lambda op: (op.partition_path, op.file_id))[:1]


class _OneGroupCompaction(TableService):
    action = "compaction"

    def __init__(self, options: object) -> None:
        self.options = options

    def schedule(self, host: TableServiceHost, instant_time: str | None = None) -> str | None:
        host.prepare()
        return host.schedule_compaction(_FirstGroupOnly(), instant_time=instant_time)

    def execute(self, host: TableServiceHost, instant: str) -> None:
        host.prepare()
        host.execute_compaction(instant)


class _ThirdParty:
    @hookimpl
    def hudi_table_services(self) -> list[ComponentSpec[TableService]]:
        return [ComponentSpec("one-group-compaction", factory=_OneGroupCompaction)]


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf" if i.startswith("s") else "ny" for i in ids], "ts": [ts] * len(ids)})


def test_a_compaction_service_of_another_plugin_runs_inline_by_name(tmp_path: Path) -> None:
    pm = build_plugin_manager()
    pm.register(_ThirdParty())
    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(tmp_path / "t"), config, plugin_manager=pm)
    plain = HudiSettings(services={"clean": {"automatic": False}})  # type: ignore[arg-type]
    WriteClient(table, plain).insert(_batch(["s1", "n1"], 1))
    inline = HudiSettings(
        services={
            "compaction": {"service": "one-group-compaction", "inline": True, "max_delta_commits": 1},
            "clean": {"automatic": False},
        }
    )  # type: ignore[arg-type]
    result = WriteClient(table, inline).upsert(_batch(["s1", "n1"], 2))
    (run,) = result.services
    assert (run.service, run.executed) == ("one-group-compaction", True)
    timeline = table.reload().timeline
    done = timeline.get(run.instant, Action.COMMIT)
    assert done.state is State.COMPLETED
    plan = decode_compaction_plan(timeline.read_bytes(done, State.REQUESTED))
    assert [op.partition_path for op in plan.operations] == ["ny"]  # the plugin's strategy chose
    assert {s.partition_path for s in table.latest_file_slices() if s.has_log_files} == {"sf"}
    rows = sorted(read_table(table).select(["id", "ts"]).to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": "n1", "ts": 2}, {"id": "s1", "ts": 2}]
    # The same service from Python: nothing left to compact but the other group.
    service, host = open_table_service(table, inline, "compaction")
    assert isinstance(service, _OneGroupCompaction)
    assert service.schedule(host) is not None


def test_a_host_is_bound_to_one_table_and_its_settings(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path / "t"), config)
    host = table_service_host(table, HudiSettings())
    assert table_service_host(host) is host
    assert host.base_uri == table.base_uri
    with pytest.raises(ConfigError, match="bound to its settings"):
        table_service_host(host, HudiSettings())
    with pytest.raises(TableError, match="got str"):
        table_service_host("not a table")  # type: ignore[arg-type]


def test_an_option_the_service_does_not_take_is_refused(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path / "t"), config)
    odd = HudiSettings(services={"compaction": {"strategy": {"name": "unbounded", "options": {"budget": 1}}}})  # type: ignore[arg-type]
    with pytest.raises(PluginConfigError, match=r"strategy\.options") as info:
        open_table_service(table, odd, "compaction")
    assert info.value.field_path == "services.compaction"
