"""Components named by ``"module:attribute"`` references load when first built, not at discovery."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hudi_framework.errors import ComponentLoadError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl

IMPLEMENTATION = """
import sys
from pydantic import BaseModel, ConfigDict
from hudi_framework.contracts.service import TableService

sys.modules[__name__].loaded_at_import = True


class Options(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    retention: int = 3


class KeepLatest(TableService):
    def __init__(self, options):
        self.options = options

    def schedule(self, table):
        return None

    def execute(self, table, instant):
        pass


NOT_A_MODEL = 7
"""


@pytest.fixture
def implementation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"lazy_impl_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(IMPLEMENTATION))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _registry(*specs: ComponentSpec[object]) -> ComponentRegistry:
    class Plugin:
        @hookimpl
        def hudi_table_services(self) -> list[ComponentSpec[object]]:
            return list(specs)

    return ComponentRegistry.from_manager(build_plugin_manager(load_entry_points=False, extra_plugins=[Plugin()]))


def test_references_import_on_first_build(implementation: str) -> None:
    registry = _registry(
        ComponentSpec("keep", factory=f"{implementation}:KeepLatest", options_model=f"{implementation}:Options")
    )
    assert implementation not in sys.modules  # discovery did not import it
    built = registry.build(ComponentKind.SERVICE, "keep", {"retention": 5})
    assert type(built).__name__ == "KeepLatest"
    assert built.options.retention == 5
    assert sys.modules[implementation].loaded_at_import


@pytest.mark.parametrize("reference", ["no_colon", ":Name", "module:"])
def test_malformed_reference_fails_at_registration(reference: str) -> None:
    with pytest.raises(ComponentLoadError, match=r"expected 'package\.module:attribute'") as info:
        ComponentSpec("broken", factory=reference)
    assert (info.value.component, info.value.reference) == ("broken", reference)


def test_unloadable_references_name_the_component(implementation: str) -> None:
    registry = _registry(
        ComponentSpec("missing-module", factory="no_such_module_xyz:Thing"),
        ComponentSpec("missing-name", factory=f"{implementation}:Nope"),
        ComponentSpec(
            "not-a-model", factory=f"{implementation}:KeepLatest", options_model=f"{implementation}:NOT_A_MODEL"
        ),
    )
    for name, reference in [
        ("missing-module", "no_such_module_xyz:Thing"),
        ("missing-name", f"{implementation}:Nope"),
        ("not-a-model", f"{implementation}:NOT_A_MODEL"),
    ]:
        with pytest.raises(ComponentLoadError) as info:
            registry.build(ComponentKind.SERVICE, name)
        assert (info.value.component, info.value.reference) == (name, reference)
        assert f"component {name!r}: cannot load {reference!r}" in str(info.value)


def test_building_a_manager_imports_no_unused_implementation() -> None:
    # In a fresh interpreter: discovering every installed plugin must not import boto3 or the
    # implementation modules of components nobody built (each costs start-up time in every process).
    heavy = [
        "boto3",
        "botocore",
        "hudi_storage_s3.backend",
        "hudi_lock_dynamodb.client",
        "hudi_lock_storage.provider",
        "hudi_services_cleaning.planner",
        "hudi_services_compaction.scheduler",
        "hudi_index_simple.index",
    ]
    code = (
        "import sys\n"
        "from hudi_framework.plugin import build_plugin_manager, ComponentRegistry\n"
        "ComponentRegistry.from_manager(build_plugin_manager())\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_exports_keep_plugin_imports_working() -> None:
    import hudi_lock_dynamodb
    from hudi_lock_dynamodb import DynamoDBLockOptions, ensure_lock_table

    assert DynamoDBLockOptions.__module__ == "hudi_lock_dynamodb.options"
    assert callable(ensure_lock_table)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = hudi_lock_dynamodb.nothing_here
