"""A compaction of 64 file groups, each with a few log files: in one process, in the local engine's
process pool (2 workers) and in Spark ``local[2]`` executors (the issue's target: Spark at most 0.6x
the single process).

The prepared table (unmeasured) is the base data bulk-inserted as a merge-on-read table of 64 file
groups (8 per partition, files sized to ``rows / 64`` rows), then three upserts of a third of the
change batch each (updates to log files of every file group; small-file handling off), then the
compaction scheduled. The steps measure its execution only: the same plan, the same files.
"""

from __future__ import annotations

from typing import Any

from bench.dataset import EVENT_TIME, KEY, PARTITION
from bench.step import StepContext
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_framework.write.service_host import ServiceHost
from hudi_framework.write.task_pool import ProcessPoolRunner
from hudi_services_compaction import CompactionService

FILE_GROUPS = 64
UPSERTS = 3
_RECORD_SIZE = 1024


def _settings(rows: int) -> HudiSettings:
    per_group = -(-rows // FILE_GROUPS)
    options = {
        "hoodie.index.type": "BLOOM",
        "hoodie.copyonwrite.record.size.estimate": str(_RECORD_SIZE),
        "hoodie.parquet.max.file.size": str(per_group * _RECORD_SIZE),
        "hoodie.parquet.small.file.limit": "0",
        "hoodie.clean.automatic": "false",
    }
    return HudiSettings.from_hoodie_options(options, env=False)


def _path(ctx: StepContext) -> str:
    return str(ctx.work / "table")


def prepare(ctx: StepContext) -> None:
    """The table with its compaction of 64 file groups scheduled."""
    base = ctx.inputs.read_base()
    settings = _settings(base.num_rows)
    config = new_table_config(
        "bench", table_type="MERGE_ON_READ", record_key_fields=[KEY], partition_fields=[PARTITION],
        ordering_fields=[EVENT_TIME],
    )  # fmt: skip
    table = HudiTable.create(_path(ctx), config, schema=base.schema)
    client = WriteClient(table, settings)
    client.bulk_insert(base)
    changes = ctx.inputs.read_changes()
    step = -(-changes.num_rows // UPSERTS)
    for start in range(0, changes.num_rows, step):
        client.upsert(changes.slice(start, step))
    instant = CompactionService().schedule(ServiceHost(table, settings))
    if instant is None:
        raise RuntimeError("nothing to compact in the prepared table")


def _execute(ctx: StepContext, runner: ServiceTaskRunner) -> dict[str, Any]:
    table = HudiTable.open(_path(ctx))
    pending = table.timeline.pending({Action.COMPACTION})
    settings = _settings(ctx.inputs.base_rows())
    result = ServiceHost(table, settings, runner=runner).execute_compaction(pending[0].requested_time)
    return {"rows": result.num_writes, "files": len(result.stats)}


def single_process(ctx: StepContext) -> dict[str, Any]:
    """Every operation in the calling process, one after another (the behaviour before runners)."""
    return _execute(ctx, InProcessRunner())


def process_pool(ctx: StepContext) -> dict[str, Any]:
    """The local engine's process pool of two workers (spawned, so their start-up is measured)."""
    return _execute(ctx, ProcessPoolRunner(2))


def spark_executors(ctx: StepContext) -> dict[str, Any]:
    """One Spark task per operation in the step's ``local[2]`` session."""
    from hudi_framework.spark.service_runner import SparkTaskRunner

    return _execute(ctx, SparkTaskRunner(ctx.spark))
