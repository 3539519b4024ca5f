"""The starting table of the kill tests: rows a, b (partition sf) and x, y (ny) at ts 1, in any
layout, each layout made once per module and copied for every test."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

#: (id, city, ts) of the starting table.
START_ROWS = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1), ("y", "ny", 1)]


def create_start_table(
    uri: str, table_type: str, version: int, storage_options: dict[str, Any] | None = None
) -> HudiTable:
    """Create the starting table at ``uri`` (record key ``id``, partitions ``city``, ordering ``ts``)."""
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(uri, config, storage_options=storage_options)
    WriteClient(table).insert(pa.Table.from_pylist([{"id": i, "city": c, "ts": t} for i, c, t in START_ROWS]))
    return table


def start_table_copies(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, str, int], HudiTable]:
    """``make(path, table_type, version)``: a copy of the layout's starting table at ``path``."""
    templates: dict[tuple[str, int], Path] = {}

    def make(path: Path, table_type: str, version: int) -> HudiTable:
        template = templates.get((table_type, version))
        if template is None:
            template = tmp_path_factory.mktemp("template") / "t"
            create_start_table(str(template), table_type, version)
            templates[(table_type, version)] = template
        shutil.copytree(template, path)
        return HudiTable.open(str(path))

    return make
