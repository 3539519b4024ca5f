"""The worker daemon: Spark forks our Python workers from a process that preloaded the task modules."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.plugin import ComponentSpec, build_plugin_manager, hookimpl
from hudi_framework.spark.daemon import PRELOADED, preload, preload_components


def _parent_command(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    # Runs in a worker: the command line of the process it was forked from.
    parent = os.getppid()
    command = Path(f"/proc/{parent}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    for _ in batches:
        yield pa.record_batch({"command": [command]})


@pytest.mark.spark
def test_workers_fork_from_the_preloading_daemon(spark: Any) -> None:
    commands = spark.range(0, 2, numPartitions=2).mapInArrow(_parent_command, "command string").collect()
    assert commands
    assert all("-m hudi_framework.spark.daemon" in row.command for row in commands)


def test_preload_reports_what_failed_and_carries_on(capsys: pytest.CaptureFixture[str]) -> None:
    assert preload(("json", "hudi_framework_no_such_module")) == ["hudi_framework_no_such_module"]
    assert "preloading hudi_framework_no_such_module failed" in capsys.readouterr().err


def test_preloading_imports_every_task_module_in_a_fresh_interpreter() -> None:
    code = (
        "import sys; from hudi_framework.spark.daemon import preload; "
        "failed = preload(); print(failed, all(m in sys.modules for m in sys.argv[1:]))"
    )
    out = subprocess.run([sys.executable, "-c", code, *PRELOADED], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True"


def test_preloading_imports_the_task_components_in_a_fresh_interpreter() -> None:
    code = (
        "import sys; from hudi_framework.spark.daemon import preload_components; "
        "failed = preload_components(); print(failed, all(m in sys.modules for m in sys.argv[1:]), "
        "'hudi_storage_s3.provider' in sys.modules)"
    )
    implementations = ["hudi_index_bloom.index", "hudi_keygen_builtin.generators", "hudi_merger_builtin.mergers"]
    out = subprocess.run([sys.executable, "-c", code, *implementations], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True False"  # storage backends (boto3) are not preloaded


def test_a_component_that_fails_to_import_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    class Broken:
        @hookimpl
        def hudi_indexes(self) -> list[ComponentSpec[Any]]:
            return [ComponentSpec("broken", factory="hudi_framework_no_such_module:Index")]

    manager = build_plugin_manager(load_entry_points=False, extra_plugins=[Broken()])
    assert preload_components(("INDEX",), manager=manager) == ["index broken"]
    assert "preloading index 'broken' failed" in capsys.readouterr().err
