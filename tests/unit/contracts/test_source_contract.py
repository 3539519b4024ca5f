"""The source contract: a plugin's source is found by name or alias and plans and reads as documented."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pytest

from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.errors import CheckpointError, HudiError, SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl


class _Counter(Source):
    """Numbers ``0 .. total-1``, ``limit`` per batch; the checkpoint is the next number."""

    def __init__(self, options: object) -> None:
        self.total = 10

    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        start = int(checkpoint or 0)
        end = min(self.total, start + (limit or self.total))
        if start >= end:
            return SourcePlan((), checkpoint)
        return SourcePlan((SourceSplit(f"{start}-{end}", {"start": start, "end": end}),), str(end))

    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        start, end = int(split.payload["start"]), int(split.payload["end"])  # type: ignore[call-overload]
        yield pa.record_batch({"n": pa.array(range(start, end), pa.int64())})


class _CounterPlugin:
    @hookimpl
    def hudi_sources(self) -> list[ComponentSpec[Source]]:
        return [ComponentSpec("counter", factory=_Counter, aliases=("com.acme.CounterSource",))]


def test_a_source_plugin_is_built_by_name_or_alias_and_batches_resume_from_checkpoints() -> None:
    registry = ComponentRegistry.from_manager(
        build_plugin_manager(load_entry_points=False, extra_plugins=[_CounterPlugin()])
    )
    assert registry.get(ComponentKind.SOURCE, "com.acme.CounterSource").spec.name == "counter"
    source = registry.build(ComponentKind.SOURCE, "counter", {})
    assert isinstance(source, Source)
    context: SourceContext = None  # type: ignore[assignment]  # the counter needs no storage
    seen: list[int] = []
    checkpoint = None
    for _ in range(5):
        plan = source.plan(checkpoint, limit=4, context=context)
        for split in plan.splits:
            for batch in source.read(split, context):
                seen.extend(batch.column("n").to_pylist())
        checkpoint = plan.checkpoint
    assert seen == list(range(10))
    final = source.plan(checkpoint, limit=4, context=context)
    assert final.empty
    assert final.checkpoint == "10"


def test_checkpoint_errors_are_source_errors_naming_the_checkpoint() -> None:
    error = CheckpointError("kafka", "topic,0:x", "offset is not a number")
    assert isinstance(error, SourceError)
    assert isinstance(error, HudiError)
    assert error.checkpoint == "topic,0:x"
    assert error.source == "kafka"
    with pytest.raises(SourceError, match="source 'kafka': cannot resume from checkpoint 'topic,0:x'"):
        raise error
