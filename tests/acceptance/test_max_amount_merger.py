"""The smallest third-party merger (examples/max-amount-merger) is short, public-API only, and works.

It is a distribution of its own, used here uninstalled (``pythonpath`` in pyproject.toml) and
registered on a plugin manager as an installed entry point would be. docs/plugins.md shows the
module verbatim, so the documentation cannot drift from the tested code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import max_amount_merger
import pyarrow as pa
import pytest
from hypothesis import strategies as st
from max_amount_merger import MaxAmountMerger

from hudi_framework import HudiTable, build_plugin_manager, new_table_config
from hudi_framework.config import HudiSettings
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.read.reader import read_table
from hudi_framework.testing import RecordMergerContract
from hudi_framework.write.client import WriteClient

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "max-amount-merger" / "max_amount_merger.py"
SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("amount", pa.int64()), ("note", pa.string())])


class TestMaxAmountMerger(RecordMergerContract):
    columns = {"amount": (pa.int64(), st.none() | st.sampled_from([1, 2, 3]))}

    @pytest.fixture
    def merger(self) -> RecordMerger:
        return MaxAmountMerger()


def test_at_most_15_lines_of_code() -> None:
    code = [line for line in EXAMPLE.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert len(code) <= 15


def test_docs_show_the_example_verbatim() -> None:
    docs = (ROOT / "docs" / "plugins.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", docs, flags=re.DOTALL)
    assert EXAMPLE.read_text() in blocks


def _registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(build_plugin_manager(extra_plugins={"max-amount-merger": max_amount_merger}))


def test_found_by_name_and_by_strategy_id() -> None:
    registry = _registry()
    assert type(registry.build(ComponentKind.MERGER, "max-amount")) is MaxAmountMerger
    assert type(registry.build(ComponentKind.MERGER, MaxAmountMerger.strategy_id)) is MaxAmountMerger


def _rows(*rows: tuple[Any, ...]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(SCHEMA.names, r, strict=True)) for r in rows], schema=SCHEMA)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_table_merged_by_the_example(tmp_path: Path, table_type: str) -> None:
    config = new_table_config(
        "payments",
        table_type=table_type,
        record_key_fields=["id"],
        ordering_fields=["ts"],
        merge_mode="CUSTOM",
        merge_strategy_id=MaxAmountMerger.strategy_id,
    )
    pm = build_plugin_manager(extra_plugins={"max-amount-merger": max_amount_merger})
    table = HudiTable.create(str(tmp_path), config, schema=SCHEMA, plugin_manager=pm)
    client = WriteClient(table, HudiSettings(merger={"mode": "CUSTOM", "strategy_id": MaxAmountMerger.strategy_id}))
    assert type(client.session.merger) is MaxAmountMerger
    client.upsert(_rows(("a", 1, 5, "first"), ("b", 1, 7, "first"), ("c", 1, None, "first")))
    client.upsert(_rows(("a", 2, 3, "smaller"), ("b", 2, 9, "larger"), ("c", 2, 1, "some amount")))
    client.upsert(_rows(("a", 3, 5, "tie"), ("b", 3, None, "no amount")))
    rows = read_table(table.reload(), columns=SCHEMA.names).to_pylist()
    assert sorted((r["id"], r["amount"], r["note"]) for r in rows) == [
        ("a", 5, "tie"),
        ("b", 9, "larger"),
        ("c", 1, "some amount"),
    ]
