"""``format("hudi")`` resolves in any SparkSession of an editable install, from any working directory,
and ``hudi-fw run`` starts without Spark's start-up chatter.

PySpark registers Python data sources by scanning top-level ``pyspark_*`` modules with
``pkgutil.iter_modules``, which does not see the import hook setuptools uses for editable installs of
this layout; the project's build backend installs ``pyspark_hudi.py`` for it (build_backend/).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.spark.session import register_data_source

ROOT = Path(__file__).resolve().parents[2]

#: Runs the very scan Spark runs on its first data-source call, and prints the names it found.
SCAN = """
import io, struct
from pyspark.sql.worker import lookup_data_sources
out = io.BytesIO()
lookup_data_sources._main(io.BytesIO(), out)
data = out.getvalue()
count, at, names = struct.unpack(">i", data[:4])[0], 4, []
for _ in range(count):
    size = struct.unpack(">i", data[at : at + 4])[0]
    names.append(data[at + 4 : at + 4 + size].decode())
    at += 4 + size
    size = struct.unpack(">i", data[at : at + 4])[0]
    at += 4 + size
print(",".join(names))
"""


def _clean_env() -> dict[str, str]:
    # Nothing of the checkout on the path: what a user's shell has after the README's install.
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_LOCAL_IP")}


def test_spark_s_data_source_scan_finds_hudi_from_any_directory(tmp_path: Path) -> None:
    found = subprocess.run(
        [sys.executable, "-c", SCAN], cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, check=True
    )
    assert "hudi" in found.stdout.strip().split(","), found.stderr


@pytest.mark.spark
def test_a_session_that_found_hudi_is_not_registered_again(spark: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from pyspark.sql.datasource import DataSourceRegistration

    calls: list[object] = []
    monkeypatch.setattr(DataSourceRegistration, "register", lambda self, source: calls.append(source))
    spark.read.format("hudi")  # the first data-source call runs the scan
    register_data_source(spark)
    assert calls == []  # a second registration would replace the scan's, with a warning


@pytest.mark.spark
def test_the_main_job_starts_with_its_own_progress(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "run",
            str(ROOT / "configs" / "quickstart.toml"), "--path", str(tmp_path / "trips"), "--rows", "300",
        ],
        cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("hudi-fw run: table trips at"), proc.stdout[:500]
    for chatter in ("replaced a statically registered data source", "loopback address", "NativeCodeLoader",
                    "default log4j profile", "setLogLevel"):  # fmt: skip
        assert chatter not in proc.stderr + proc.stdout, proc.stderr
