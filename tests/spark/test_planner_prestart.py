"""A session built by ``spark_session`` starts the planner processes of ``format("hudi")`` before its
first read: that read then starts no Python process of its own and plans in the prestarted ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A session of its own (prestart on or off), then a read; prints the planner processes (pid and
#: kind) that existed before the read and those the read started.
SCRIPT = """
import json, os, sys, threading
from pathlib import Path
import pyarrow as pa
from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config
from hudi_framework.spark.session import spark_session

KINDS = (b"pyspark.sql.worker.create_data_source", b"pyspark.sql.worker.plan_data_source_read")

def parent(pid):
    return (Path("/proc") / pid / "stat").read_text().rsplit(")", 1)[1].split()[1]

def ours(pid):  # a descendant of this process (other Spark sessions may run on the machine)
    while pid not in ("0", "1"):
        pid = parent(pid)
        if pid == str(os.getpid()):
            return True
    return False

def planners():
    found = {}
    for proc in Path("/proc").iterdir():
        try:
            args = (proc / "cmdline").read_bytes().split(b"\\0") if proc.name.isdigit() else []
            kinds = [k for k in KINDS if k in args]
            if kinds and ours(proc.name):
                found[proc.name] = kinds[0].decode().rsplit(".", 1)[1]
        except (OSError, IndexError):
            continue
    return found

path, prestart = sys.argv[1], sys.argv[2] == "on"
config = new_table_config("one", record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
WriteClient(HudiTable.create(path, config), HudiSettings()).insert(pa.table({"id": ["a", "b"], "ts": [1, 2]}))
spark = spark_session("prestart", master="local[2]", conf={"spark.ui.enabled": "false"}, prestart_planners=prestart)
for thread in threading.enumerate():
    if thread.name == "hudi-planner-prestart":
        thread.join(300)
before = planners()
rows = sorted(r[0] for r in spark.read.format("hudi").load(path).select("id").collect())
after = planners()
spark.stop()
print(json.dumps({"before": sorted(before.values()), "new": sorted(set(after) - set(before)), "rows": rows}))
"""


def _run(tmp_path: Path, prestart: str) -> dict[str, list[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_LOCAL_IP", "PYSPARK_PYTHON")}
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{ROOT / 'plugins'}"
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / prestart), prestart],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, list[str]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.spark
@pytest.mark.spark_process  # a session of its own: beside the Spark group
def test_the_first_read_plans_in_the_prestarted_planner_processes(tmp_path: Path) -> None:
    primed = _run(tmp_path, "on")
    assert primed["rows"] == ["a", "b"]
    # Both kinds' daemon and the planner it forked, kept for reuse.
    assert primed["before"].count("create_data_source") >= 2, primed
    assert primed["before"].count("plan_data_source_read") >= 2, primed
    assert primed["new"] == [], primed  # the read reused them
