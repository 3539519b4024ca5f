"""What Spark's planner processes import and plan for a ``format("hudi")`` read.

On a session's first read PySpark runs the data source's ``schema()`` in one fresh Python process
(``create_data_source``) and ``reader().partitions()`` in another (``plan_data_source_read``), each
importing what it uses: the import time was most of the first read's cost against Apache Hudi, which
plans in the JVM. Each process is reproduced here in a subprocess as PySpark runs it (the data source
class and instance pickled with PySpark's serializer between them), with the same modules imported
beforehand, and what it imports beyond them is pinned.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

ROOT = Path(__file__).resolve().parents[2]

#: One planner process: ``schema`` (unpickle the registered class, call schema(), pickle the
#: instance) or ``plan`` (unpickle the instance, reader(schema).partitions(), pickle the reader),
#: then report the modules it imported beyond PySpark's worker and, last, read its partitions.
_PLANNER = r"""
import json, sys
mode, work, path = sys.argv[1:4]
import pyspark.daemon, pyspark.worker_util
if mode in ("schema", "primed"):
    import pyspark.sql.worker.create_data_source
    if mode == "primed":  # the planner a session's prestart left (hudi_framework.spark.planner_prestart)
        from hudi_framework.spark.planner_prestart import PlannerPrestartSource
        from pyspark.sql.datasource import CaseInsensitiveDict
        PlannerPrestartSource(options=CaseInsensitiveDict()).schema()
        mode = "schema"
elif mode == "plan":
    import pyspark.sql.worker.plan_data_source_read
else:  # a read task, forked from the session's worker daemon
    from hudi_framework.spark.daemon import preload, preload_components
    assert not preload() and not preload_components()
from pyspark.sql.datasource import CaseInsensitiveDict
from pyspark.worker_util import pickleSer
before = set(sys.modules)
options = dict(json.loads(sys.argv[4]))
if mode == "task":
    with open(f"{work}/tasks.pkl", "rb") as f:
        reader, partitions = pickleSer.loads(f.read())
    rows = sum(b.num_rows for p in partitions for b in reader.read(p))
    print(json.dumps({"imported": sorted(set(sys.modules) - before), "rows": rows}))
    sys.exit(0)
if mode == "schema":
    with open(f"{work}/class.pkl", "rb") as f:
        cls = pickleSer.loads(f.read())
    given = CaseInsensitiveDict()
    for key, value in {"path": path, **options}.items():
        given[key] = value
    source = cls(options=given)
    schema = source.schema()
    with open(f"{work}/source.pkl", "wb") as f:
        f.write(pickleSer.dumps((source, schema)))
    result = {"fields": schema.fieldNames()}
else:
    with open(f"{work}/source.pkl", "rb") as f:
        source, schema = pickleSer.loads(f.read())
    reader = source.reader(schema)
    task_reader = pickleSer.loads(pickleSer.dumps(reader))  # as Spark ships it to read tasks
    partitions = [pickleSer.loads(pickleSer.dumps(p)) for p in reader.partitions()]
    with open(f"{work}/tasks.pkl", "wb") as f:
        f.write(pickleSer.dumps((task_reader, partitions)))
    result = {}
imported = sorted(set(sys.modules) - before)
if mode == "plan":
    rows = sum(b.num_rows for p in partitions for b in task_reader.read(p))
    shipped_plan = getattr(task_reader, "_planned", None) is not None
    result = {"partitions": len(partitions), "rows": rows, "task_reader_has_plan": shipped_plan}
print(json.dumps({"imported": imported, **result}))
"""


def _rows(keys: range, ts: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i}" for i in keys],
            "city": [("sf", "ny", "la")[i % 3] for i in keys],
            "ts": [ts] * len(keys),
            "v": [float(i) for i in keys],
        }
    )


def _write(path: Path, rows: pa.Table, *, create: bool = False) -> None:
    settings = HudiSettings.from_hoodie_options({}, env=False)
    if create:
        config = new_table_config("trips", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
        table = HudiTable.create(str(path), config, schema=rows.schema)
    else:
        table = HudiTable.open(str(path))
    WriteClient(table, settings).upsert(rows)


def _planner(mode: str, work: Path, table: Path, options: dict[str, str], env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _PLANNER, mode, str(work), str(table), json.dumps(options)],
        capture_output=True, text=True, env=env, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture
def planner_env() -> dict[str, str]:
    """This process's environment without ``HUDI_*`` variables (which may set settings)."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("HUDI_")}


def _register(work: Path) -> None:
    from pyspark.worker_util import pickleSer

    from hudi_framework.read.splits import SplitSizing
    from hudi_framework.spark.datasource import HudiDataSource

    # As spark_session registers it: a subclass pickled by value.
    (work / "class.pkl").write_bytes(pickleSer.dumps(HudiDataSource.for_session(SplitSizing(min_splits=2))))


def test_planner_processes_import_only_what_they_use(tmp_path: Path, planner_env: dict[str, str]) -> None:
    table = tmp_path / "trips"
    _write(table, _rows(range(300), 1), create=True)
    _register(tmp_path)

    schema = _planner("schema", tmp_path, table, {}, planner_env)
    assert schema["fields"][-4:] == ["id", "city", "ts", "v"]  # type: ignore[index]
    imported = set(schema["imported"])  # type: ignore[arg-type]
    # A read with its path alone has the default settings: their typed models are not built.
    assert "hudi_framework.config.settings" not in imported
    assert not {m for m in imported if m.startswith(("hudi_framework.write", "hudi_framework.spark.datasource_write"))}
    # A copy-on-write snapshot plans no incremental or merged read and writes no log file.
    for module in (
        "hudi_framework.read.incremental",
        "hudi_framework.read.merged",
        "hudi_framework.read.merged_plan",
        "hudi_framework.log.writer",
    ):
        assert module not in imported, f"the schema planner imports {module}"

    # In the planner a session's prestart left, the schema's process imports almost nothing more.
    primed = _planner("primed", tmp_path, table, {}, planner_env)
    assert primed["fields"] == schema["fields"]
    assert len(primed["imported"]) <= 5, primed["imported"]
    heavy = ("pyarrow", "pandas", "numpy", "pydantic", "hudi_framework")
    assert not [m for m in primed["imported"] if m.startswith(heavy)]  # type: ignore[attr-defined]

    plan = _planner("plan", tmp_path, table, {}, planner_env)
    imported = set(plan["imported"])  # type: ignore[arg-type]
    # The schema's process planned the read: this one opens no table and builds no plugin manager.
    for module in (
        "hudi_framework.runtime.table",
        "hudi_framework.plugin.manager",
        "pluggy",
        "hudi_framework.config.settings",
        "pydantic_settings",
        "hudi_framework.read.snapshot",
        "hudi_framework.layout.fs_view",
        # Unpickling the parsed options and the splits needs no typed models nor Arrow compute.
        "pydantic",
        "hudi_framework.read.options",
        "pyarrow.compute",
    ):
        assert module not in imported, f"the partition planner imports {module}"
    assert plan["rows"] == 300
    assert plan["task_reader_has_plan"] is False  # the plan does not travel with every read task

    # Read tasks import nothing of ours beyond what the worker daemon preloads before forking them.
    task = _planner("task", tmp_path, table, {}, planner_env)
    assert task["rows"] == 300
    assert not [m for m in task["imported"] if m.startswith("hudi_framework")]  # type: ignore[attr-defined]


def test_the_read_plans_the_instant_its_schema_came_from(tmp_path: Path, planner_env: dict[str, str]) -> None:
    """A commit landing between the two planner processes is not read: the files are those of the
    instant whose schema Spark was given (as Spark's file sources list their files once, at load)."""
    table = tmp_path / "trips"
    _write(table, _rows(range(200), 1), create=True)
    _register(tmp_path)
    _planner("schema", tmp_path, table, {}, planner_env)
    _write(table, _rows(range(200, 350), 2))

    assert _planner("plan", tmp_path, table, {}, planner_env)["rows"] == 200


@pytest.mark.parametrize(
    ("options", "env"),
    [
        ({"hoodie.datasource.query.type": "read_optimized"}, {}),
        ({}, {"HUDI_WRITE__PARALLELISM": "3"}),
        ({"filter.pushdown": "true"}, {}),
    ],
    ids=["a-settings-option", "a-HUDI-variable", "filter-pushdown"],
)
def test_options_and_variables_still_resolve_settings(
    tmp_path: Path, planner_env: dict[str, str], options: dict[str, str], env: dict[str, str]
) -> None:
    """Options or ``HUDI_*`` variables that may set a setting build the typed settings as before; a
    pushdown read plans in the reader's process (Spark's filters reach only the reader)."""
    table = tmp_path / "trips"
    _write(table, _rows(range(120), 1), create=True)
    _register(tmp_path)

    schema = _planner("schema", tmp_path, table, options, {**planner_env, **env})
    plan = _planner("plan", tmp_path, table, options, {**planner_env, **env})

    assert plan["rows"] == 120
    if options.get("filter.pushdown"):
        assert "hudi_framework.read.snapshot" in set(plan["imported"])  # type: ignore[arg-type]
    else:
        assert "hudi_framework.config.settings" in set(schema["imported"])  # type: ignore[arg-type]


def test_bad_options_still_fail_in_the_schema_process(tmp_path: Path, planner_env: dict[str, str]) -> None:
    table = tmp_path / "trips"
    _write(table, _rows(range(10), 1), create=True)
    _register(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _PLANNER, "schema", str(tmp_path), str(table), json.dumps({"hoodie.no.such.key": "1"})],
        capture_output=True, text=True, env=planner_env, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "UnknownConfigKeyError" in proc.stderr
    assert "hoodie.no.such.key" in proc.stderr


def test_read_only_keys_are_the_read_options_keys() -> None:
    """The data source spells these keys out (their module imports pydantic): they must agree."""
    from hudi_framework.read.options import INCR_FALLBACK_KEY, METADATA_ENABLE_KEY
    from hudi_framework.spark.options import READ_ONLY_KEYS

    assert frozenset({METADATA_ENABLE_KEY, INCR_FALLBACK_KEY}) == READ_ONLY_KEYS
