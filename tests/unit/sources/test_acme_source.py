"""The example third-party source (examples/acme-source), installed by pip, passes the source contract."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from acme_source import PagesOptions, PagesSource, UpperTransformer

from hudi_framework import Components, HudiSettings
from hudi_framework.contracts.source import Source, SourceContext
from hudi_framework.contracts.transformer import TransformContext
from hudi_framework.errors import (
    CheckpointError,
    PluginConfigError,
    SourceError,
    TransformerError,
    UnknownComponentError,
)
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import SourceContract


@pytest.fixture
def context() -> SourceContext:
    return Components.from_settings(HudiSettings())


class _Exporter:
    """Drops the next page: two records with fresh order ids."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.pages = folder, 0
        folder.mkdir(parents=True, exist_ok=True)

    def __call__(self) -> Sequence[Any]:
        self.pages += 1
        ids = [self.pages * 10, self.pages * 10 + 1]
        records = [{"id": i, "item": f"item-{i}"} for i in ids]
        (self.folder / f"page-{self.pages:06d}.json").write_text(json.dumps(records))
        return ids


class TestPagesContract(SourceContract):
    BAD_CHECKPOINTS = ("page-3", "1700000000000.0")

    @pytest.fixture
    def source(self, tmp_path: Path) -> Source:
        # Built as users build it: by name, through the installed distribution's entry point.
        registry = ComponentRegistry.from_manager(build_plugin_manager())
        return registry.build(ComponentKind.SOURCE, "acme-pages", {"folder": str(tmp_path / "exports")})

    @pytest.fixture
    def land(self, tmp_path: Path) -> Callable[[], Sequence[Any]]:
        return _Exporter(tmp_path / "exports")


def test_installed_through_its_entry_point() -> None:
    pm = build_plugin_manager()
    assert pm.distribution_of("acme-source") == "acme-source"
    registry = ComponentRegistry.from_manager(pm)
    assert registry.get(ComponentKind.SOURCE, "acme_source.PagesSource").spec.name == "acme-pages"
    assert type(registry.build(ComponentKind.SOURCE, "acme-pages", {"folder": "/x"})) is PagesSource


def test_blocked_distribution_is_not_found() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager(disable=["acme-source"]))
    with pytest.raises(UnknownComponentError, match="acme-pages"):
        registry.get(ComponentKind.SOURCE, "acme-pages")


def test_damaged_page_and_bad_checkpoint(tmp_path: Path, context: SourceContext) -> None:
    (tmp_path / "page-000001.json").write_text('{"not": "a list"}')
    source = PagesSource(PagesOptions(folder=str(tmp_path)))
    plan = source.plan(None, limit=None, context=context)
    with pytest.raises(SourceError, match=r"page-000001\.json"):
        list(source.read(plan.splits[0], context))
    with pytest.raises(CheckpointError, match="page number"):
        source.plan("x", limit=None, context=context)


def test_its_transformer_is_installed_through_the_same_entry_point() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    assert registry.get(ComponentKind.TRANSFORMER, "acme_source.UpperTransformer").spec.name == "acme-upper"
    upper = registry.build(ComponentKind.TRANSFORMER, "acme-upper", {"columns": ["item"]})
    assert type(upper) is UpperTransformer
    context = TransformContext(engine="local", table_name="t", base_path="/t")
    rows = pa.table({"id": [1, 2], "item": ["ab-1", None]})
    assert upper.transform_arrow(rows, context).to_pydict() == {"id": [1, 2], "item": ["AB-1", None]}
    with pytest.raises(TransformerError, match=re.escape("the batch has no column 'item'")):
        upper.transform_arrow(pa.table({"id": [1]}), context)
    with pytest.raises(PluginConfigError, match="columns"):
        registry.build(ComponentKind.TRANSFORMER, "acme-upper", {"columns": []})
