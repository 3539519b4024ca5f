"""``format("hudi")`` resolves in any SparkSession of an editable install, from any working directory,
and ``hudi-fw run`` starts without Spark's start-up chatter (checked with the S3 main job of
tests/faults/test_s3_settings_spark.py).

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


#: A job as users run one: a session of its own, a Python job, then a read; prints the session's
#: Python worker daemons (processes running the daemon module whose parent does not).
SHARED_DAEMON = """
import sys
from pathlib import Path
import pyarrow as pa
from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config
from hudi_framework.spark.session import spark_session

def parent(pid):
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]

def is_daemon(pid):
    args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\\0")
    return b"-m" in args and b"hudi_framework.spark.daemon" in args

def identity(batches):
    yield from batches

path = sys.argv[1]
config = new_table_config("one", record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
WriteClient(HudiTable.create(path, config), HudiSettings()).insert(pa.table({"id": ["a"], "ts": [1]}))
spark = spark_session("daemons", master="local[2]", conf={"spark.ui.enabled": "false"})
spark.range(0, 2, numPartitions=2).mapInArrow(identity, "id long").collect()
assert spark.read.format("hudi").load(path).select("id").collect()[0][0] == "a"
daemons = []
for proc in Path("/proc").iterdir():
    try:
        if proc.name.isdigit() and is_daemon(proc.name) and not is_daemon(parent(proc.name)):
            pid = proc.name
            while pid not in ("0", "1") and pid != str(__import__("os").getpid()):
                pid = parent(pid)
            if pid != "1" and pid != "0":
                daemons.append(proc.name)
    except (OSError, IndexError):
        pass
spark.stop()
print(len(daemons))
"""


@pytest.mark.spark
@pytest.mark.spark_process  # a session of its own: beside the Spark group
def test_reads_get_workers_from_the_session_s_daemon(tmp_path: Path) -> None:
    """A read after another Python job of the session gets its workers from the same daemon, already
    started with our modules preloaded, instead of booting a second one (1.5-2 s on the first read)."""
    env = {**_clean_env(), "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'plugins'}"}
    env.pop("PYSPARK_PYTHON", None)
    proc = subprocess.run(
        [sys.executable, "-c", SHARED_DAEMON, str(tmp_path / "one")],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "1", proc.stdout


# ``hudi-fw run`` starting without Spark's start-up chatter, from a clean environment, is checked by
# the S3 main job of tests/faults/test_s3_settings_spark.py (one Spark start for both).
