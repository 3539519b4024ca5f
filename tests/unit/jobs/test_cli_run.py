"""``hudi-fw run``: the main job from the shell (local engine; Spark runs in tests/spark)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.runtime.table import HudiTable

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
runner = CliRunner()


def test_run_quickstart_locally(tmp_path: Path) -> None:
    base = tmp_path / "quickstart"
    args = ["run", str(CONFIGS / "quickstart.toml"), "--path", str(base), "--rows", "2000", "--engine", "local"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = result.output
    for text in ("load", "batch 3", "rows in", "files", "timeline", "verified ✓", "engine local"):
        assert text in out
    # 2,000 loaded; +2,500 inserted; -1,000 deleted; +500 inserted (updates are capped at the live rows).
    assert "read back 4,000 rows (expected 4,000)" in out
    table = HudiTable.open(str(base))
    assert len(table.timeline.commits_timeline()) == 4


def test_run_needs_a_config(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", str(tmp_path / "missing.toml")])
    assert result.exit_code != 0


def test_a_mismatch_exits_with_status_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hudi_framework.cli.app import main
    from hudi_framework.jobs import runner as job_runner

    monkeypatch.setattr(job_runner, "content_checksum", lambda rows: "0" * 16)
    args = [
        "run",
        str(CONFIGS / "quickstart.toml"),
        "--path",
        str(tmp_path / "t"),
        "--rows",
        "200",
        "--engine",
        "local",
    ]
    monkeypatch.setattr(sys, "argv", ["hudi-fw", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert "MISMATCH" in captured.out
    assert "JobVerificationError" in captured.err
