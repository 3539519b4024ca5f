"""Transformer plugins for tests, and the modules a test's settings register to see the built-in ones.

Registered through ``plugins.modules`` (:func:`modules`) so every process of a streamer loads them.
``test-spark-only`` implements only the Spark method and ``test-tag`` only the Arrow one, to show
how the streamer refuses a transformer on an engine it does not run on.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from hudi_framework.contracts.transformer import TransformContext, Transformer
from hudi_framework.plugin import PROJECT, ComponentSpec, hookimpl

MODULE = "tests.unit.streamer.transformer_plugins"
BUILTIN_MODULE = "hudi_transformers_builtin"


def modules() -> list[str]:
    """This module, and the built-in transformers' module while the installed metadata lacks their
    entry point (``transformers-builtin``): registering a module twice is an error."""
    installed = {ep.name for ep in importlib.metadata.entry_points(group=PROJECT)}
    return [MODULE] if "transformers-builtin" in installed else [MODULE, BUILTIN_MODULE]


class TagOptions(BaseModel):
    """The value of the ``tag`` column."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: str = "tagged"


class TagTransformer(Transformer):
    """Arrow only: a ``tag`` column, and the context's table name as ``table``."""

    def __init__(self, options: TagOptions) -> None:
        self.options = options

    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> pa.Table:
        tags = pa.repeat(pa.scalar(self.options.value), rows.num_rows)
        tables = pa.repeat(pa.scalar(f"{context.engine}:{context.table_name}"), rows.num_rows)
        return rows.append_column("tag", tags).append_column("table", tables)


class SparkOnlyTransformer(Transformer):
    """Spark only: the frame unchanged."""

    def __init__(self, options: object) -> None:
        pass

    def transform_spark(self, frame: Any, context: TransformContext) -> Any:
        return frame


class BrokenTransformer(Transformer):
    """Arrow: returns a list."""

    def __init__(self, options: object) -> None:
        pass

    def transform_arrow(self, rows: pa.Table, context: TransformContext) -> Any:
        return rows.to_pylist()


@hookimpl
def hudi_transformers() -> Sequence[ComponentSpec[Transformer]]:
    """Register the test transformers."""
    return [
        ComponentSpec("test-tag", factory=TagTransformer, options_model=TagOptions, aliases=("org.example.Tag",)),
        ComponentSpec("test-spark-only", factory=SparkOnlyTransformer),
        ComponentSpec("test-broken", factory=BrokenTransformer),
    ]
