"""A test-only source plugin: JSON-lines files landing in a directory, taken in file-name order.

Registered through ``plugins.modules = ["tests.unit.streamer.landing_source"]`` so every process of a
streamer (a subprocess, Spark executors) loads it. The checkpoint is the last file name taken; the
limit counts bytes, a file is never split. Names starting with ``_`` or ``.`` are in-progress files
and skipped, so a test can land a file atomically (write ``_x`` then rename).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.json as pj
from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.contracts.storage import FileInfo
from hudi_framework.errors import CheckpointError, SourceError
from hudi_framework.plugin import ComponentSpec, hookimpl

NAME = "test-landing"


class LandingOptions(BaseModel):
    """Where the files land (HoodieStreamer's DFS root key works too)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    root: str = Field(alias="hoodie.streamer.source.dfs.root")
    #: Like Kafka's ``auto.offset.reset=latest``: with no checkpoint, the first plan takes nothing and
    #: returns the newest file as its checkpoint.
    latest: bool = False


class LandingSource(Source):
    """JSON-lines files under ``root``, in name order."""

    def __init__(self, options: LandingOptions) -> None:
        self._root = options.root
        self._latest = options.latest

    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        if checkpoint is not None and not checkpoint.startswith("file:"):
            raise CheckpointError(NAME, checkpoint, "not a landing checkpoint (file:<name>)")
        after = checkpoint[len("file:") :] if checkpoint else ""
        files = sorted(
            (f for f in context.storage(self._root).list("") if not f.name.startswith(("_", ".")) and f.name > after),
            key=lambda f: f.name,
        )
        if checkpoint is None and self._latest:
            return SourcePlan((), f"file:{files[-1].name}" if files else "file:")
        taken: list[FileInfo] = []
        size = 0
        for f in files:
            if taken and limit is not None and size + f.size > limit:
                break
            taken.append(f)
            size += f.size
        if not taken:
            return SourcePlan((), checkpoint)
        splits = tuple(SourceSplit(f.key, {"key": f.key}, f.size) for f in taken)
        return SourcePlan(splits, f"file:{taken[-1].name}")

    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        try:
            data = context.storage(self._root).read(str(split.payload["key"]))
            if not data.strip():
                return  # an empty file: no rows
            table = pj.read_json(io.BytesIO(data))
        except (OSError, pa.ArrowInvalid) as e:
            raise SourceError(NAME, f"cannot read {split.id}: {e}") from None
        yield from table.to_batches()


@hookimpl
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    return [
        ComponentSpec(
            NAME,
            factory=LandingSource,
            options_model=LandingOptions,
            description="test: JSON-lines files in name order",
            aliases=("TestLandingSource", "org.example.sources.TestLandingSource"),
        )
    ]


def double_ts(rows: pa.Table) -> pa.Table:
    """A Python transformer for tests: ``ts`` doubled, a ``doubled`` flag added."""
    import pyarrow.compute as pc

    doubled = rows.set_column(rows.schema.get_field_index("ts"), "ts", pc.multiply(rows.column("ts"), 2))
    return doubled.append_column("doubled", pa.array([True] * rows.num_rows))


def not_a_table(rows: pa.Table) -> object:
    """A broken transformer for tests."""
    return rows.to_pylist()


def flag_frame(frame: Any) -> Any:
    """A Python transformer for Spark tests: a ``flag`` column added to the DataFrame."""
    from pyspark.sql.functions import lit

    return frame.withColumn("flag", lit(True))
