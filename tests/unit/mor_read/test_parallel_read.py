"""``read_table`` runs a plan's tasks on a thread pool: the result is exactly the sequential one."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pyarrow as pa

from hudi_framework.log.blocks import CorruptBlock
from hudi_framework.read import plan_read, read_table
from hudi_framework.read.log_records import CorruptLogBlockWarning
from hudi_framework.read.options import ReadOptions
from hudi_framework.read.reader import collect_plan, execute_plan, run_task
from tests.unit.mor_read.builder import MorBuilder, data_block, delete_block
from tests.unit.read.builder import FileWrite, TableBuilder, rows, t

CITIES = ("la", "ny", "sf", "sj")


def _mor(path: Path) -> MorBuilder:
    """Four partitions of two file groups each; logs update, insert and delete in every other group."""
    b = MorBuilder(str(path))
    writes = [
        FileWrite(city, f"{city}-{g}", rows(*((f"{city}{g}-{i}", 1, float(i), city) for i in range(40))))
        for city in CITIES
        for g in range(2)
    ]
    b.commit(t(1), writes)
    for n, city in enumerate(CITIES):
        fid = f"{city}-0"
        updates = rows(*((f"{city}0-{i}", 2, 100.0 + i, city) for i in range(0, 40, 3)), (f"{city}0-new", 2, 7.0, city))
        blocks = [data_block(t(2 + n), updates, city, fid), delete_block(t(2 + n), [f"{city}0-1", f"{city}0-5"], city)]
        b.delta_commit(t(2 + n), city, fid, blocks, base_instant=t(1))
    return b


def _sequential(b: TableBuilder) -> pa.Table:
    plan = plan_read(b.table, ReadOptions())
    return pa.Table.from_batches(list(execute_plan(plan, b.table.storage)), schema=plan.schema)


def test_parallel_mor_read_equals_sequential(tmp_path: Path) -> None:
    b = _mor(tmp_path)
    plan = plan_read(b.table, ReadOptions())
    assert len(plan.tasks) == 8
    expected = _sequential(b)
    assert expected.num_rows == 8 * 40 + 4 - 4 * 2
    for workers in (1, 2, 3, 8):
        batches = collect_plan(plan, b.table.storage, max_workers=workers)
        assert pa.Table.from_batches(batches, schema=plan.schema).equals(expected)
    assert read_table(b.table).equals(expected)


def test_parallel_cow_read_equals_sequential(tmp_path: Path) -> None:
    b = TableBuilder(str(tmp_path))
    b.commit(t(1), [FileWrite(c, f"{c}-{g}", rows(*((f"{c}{g}{i}", i, 1.0, c) for i in range(25)))) for c in CITIES
                    for g in range(3)])  # fmt: skip
    expected = _sequential(b)
    assert expected.num_rows == 4 * 3 * 25
    assert read_table(b.table).equals(expected)
    assert read_table(b.table, batch_size=7).equals(expected)


def test_corrupt_blocks_in_worker_threads_are_reported(tmp_path: Path) -> None:
    b = _mor(tmp_path)
    keys = sorted(i.key for c in CITIES for i in b.storage.list(c) if ".log." in i.name)
    for key in keys[:2]:
        data = b.storage.read(key)
        b.storage.delete(key)
        b.storage.put_if_absent(key, data[:-10])
    seen: list[CorruptBlock] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = read_table(b.table, on_corrupt=seen.append)
    assert sorted(c.path for c in seen) == keys[:2]
    assert sum(isinstance(w.message, CorruptLogBlockWarning) for w in caught) == 2
    assert out.num_rows > 0


def test_tasks_give_the_same_batches_whichever_threads_decode(tmp_path: Path) -> None:
    b = _mor(tmp_path)
    plan = plan_read(b.table, ReadOptions())
    assert {type(task).__name__ for task in plan.tasks} == {"ReadTask", "MergedReadTask"}
    for task in plan.tasks:
        threaded = list(run_task(task, b.table.storage, use_threads=True))
        own_thread = list(run_task(task, b.table.storage, use_threads=False))
        assert pa.Table.from_batches(own_thread, schema=plan.schema).equals(
            pa.Table.from_batches(threaded, schema=plan.schema)
        )


def test_merged_read_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow's pandas probe (``pa.array``, ``pa.scalar``, ``to_numpy``) imports pandas, 0.45 s of CPU
    in a fresh process; the merged read path builds its arrays from buffers instead. ``np.unique``
    imports ``numpy.ma`` (25 ms)."""
    _mor(tmp_path)
    code = (
        "import sys\n"
        "from hudi_framework.read import read_table\n"
        "from hudi_framework.runtime.table import HudiTable\n"
        f"assert read_table(HudiTable.open({str(tmp_path)!r})).num_rows == 316\n"
        "print('pandas' in sys.modules, 'numpy.ma' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False False"
