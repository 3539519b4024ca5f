"""The third-party source and transformer example, installed by pip, used from a config file as a
user would: ``hudi-fw streamer configs/custom-source.toml`` with only the paths changed, round after
round; the transformer ``acme-upper`` upper-cases every item written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hudi_framework import HudiTable, read_table
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "custom-source.toml"


def _export(folder: Path, page: int, ids: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"page-{page:06d}.json").write_text(json.dumps([{"id": i, "item": f"item-{i}-p{page}"} for i in ids]))


def _streamer(config: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "streamer", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_custom_source_config_ingests_pages_once_each_round_transformed(tmp_path: Path) -> None:
    exports, base = tmp_path / "exports", tmp_path / "orders"
    text = CONFIG.read_text(encoding="utf-8")
    text = text.replace('"/tmp/hudi/acme_orders"', f'"{base}"').replace('"/tmp/hudi/acme-exports"', f'"{exports}"')
    assert str(base) in text
    assert str(exports) in text
    config = tmp_path / "custom-source.toml"
    config.write_text(text, encoding="utf-8")

    _export(exports, 1, [1, 2])
    _export(exports, 2, [3])
    _streamer(config)
    _export(exports, 3, [2, 4])  # page 3 updates order 2
    _streamer(config)
    _streamer(config)  # nothing new: no commit

    table = HudiTable.open(str(base))
    rows = sorted((r["id"], r["item"]) for r in read_table(table, columns=["id", "item"]).to_pylist())
    assert rows == [(1, "ITEM-1-P1"), (2, "ITEM-2-P3"), (3, "ITEM-3-P2"), (4, "ITEM-4-P3")]
    commits = list(table.timeline.commits_timeline())
    assert len(commits) == 2
    assert (table.timeline.read_commit_metadata(commits[-1]).extra_metadata or {})[CHECKPOINT_KEY_V2] == "3"
