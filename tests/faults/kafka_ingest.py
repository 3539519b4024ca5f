"""A minimal Kafka ingestion loop for the kill tests, standing in for the streamer.

``python -m tests.faults.kafka_ingest <base path> <bootstrap> <topic> <limit> <batches file>``

Until the source has nothing new: read the checkpoint from the table's latest completed commit
(``streamer.checkpoint.key.v2``, Apache Hudi's key), plan the next batch of ``kafka-json`` from it,
read its splits and *insert* the rows (no deduplication: a batch applied twice would show) with the
new checkpoint in the same commit. After each commit, appends the checkpoint to ``<batches file>``
(the test's view of progress). The test kills this process with SIGKILL at random moments.
"""

from __future__ import annotations

import sys

import pyarrow as pa

import hudi_sources_kafka
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient

CHECKPOINT_KEY = "streamer.checkpoint.key.v2"
_WRITES = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)


def last_checkpoint(table: HudiTable) -> str | None:
    """The checkpoint of the latest completed commit that carries one."""
    timeline = table.timeline
    for instant in reversed(timeline.completed(_WRITES)):
        extra = timeline.read_commit_metadata(instant).extra_metadata or {}
        if CHECKPOINT_KEY in extra:
            return str(extra[CHECKPOINT_KEY])
    return None


def main(base: str, bootstrap: str, topic: str, limit: int, progress: str) -> int:
    manager = build_plugin_manager(load_entry_points=False, extra_plugins=[hudi_sources_kafka])
    options = {
        "hoodie.streamer.source.kafka.topic": topic,
        "bootstrap.servers": bootstrap,
        "auto.offset.reset": "earliest",
    }
    source = ComponentRegistry.from_manager(manager).build(ComponentKind.SOURCE, "JsonKafkaSource", options)
    while True:
        client = WriteClient(HudiTable.open(base))
        checkpoint = last_checkpoint(client.table)
        plan = source.plan(checkpoint, limit=limit, context=None)  # type: ignore[arg-type]  # no schema file
        if plan.empty:
            return 0
        rows = pa.Table.from_batches([b for split in plan.splits for b in source.read(split, None)])  # type: ignore[arg-type]
        client.insert(rows, extra_metadata={CHECKPOINT_KEY: str(plan.checkpoint)})
        with open(progress, "a", encoding="utf-8") as f:
            f.write(f"{plan.checkpoint}\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]))
