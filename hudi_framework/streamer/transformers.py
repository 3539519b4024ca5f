"""The transformers a streamer applies to each batch, in order: SQL queries, plugins and Python functions.

Each entry of ``streamer.transformers`` is one of:

* ``sql`` (Apache Hudi's SqlQueryBasedTransformer, by any of its names): runs
  ``hoodie.streamer.transformer.sql`` over the batch, named ``<SRC>``, with Spark SQL;
* a transformer plugin (:mod:`hudi_framework.contracts.transformer`) by name or alias, or by an
  Apache Hudi class name whose last part is one, built from ``streamer.transformer_options``;
* ``package.module:function``: a Python function that takes the batch and returns the transformed
  batch, a ``pyarrow.Table`` on the local engine, a Spark ``DataFrame`` on Spark.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import pyarrow as pa

from hudi_framework.config.settings import HudiSettings
from hudi_framework.config.streamer import SQL_TRANSFORMER, SRC_PLACEHOLDER
from hudi_framework.contracts.transformer import Engine, TransformContext, Transformer
from hudi_framework.errors import StreamerError, TransformerEngineError, TransformerError, UnknownComponentError
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_framework.runtime.components import Components

__all__ = [
    "SQL_TRANSFORMER_NAMES",
    "PluginTransformer",
    "PythonTransformer",
    "SqlTransformer",
    "TransformStep",
    "apply_arrow",
    "apply_spark",
    "check_engine",
    "transform_context",
    "transformers_of",
]

#: Names of the SQL transformer: ours, and Apache Hudi's class (short and full).
SQL_TRANSFORMER_NAMES: Final = frozenset(
    {SQL_TRANSFORMER, "SqlQueryBasedTransformer", "org.apache.hudi.utilities.transform.SqlQueryBasedTransformer"}
)


@dataclass(frozen=True, slots=True)
class SqlTransformer:
    """A Spark SQL query over ``<SRC>``."""

    query: str


@dataclass(frozen=True, slots=True)
class PythonTransformer:
    """A Python function from batch to batch.

    Attributes:
        reference: ``package.module:function`` as configured.
        function: The function.
    """

    reference: str
    function: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class PluginTransformer:
    """A transformer plugin, built from its options.

    Attributes:
        name: The name as configured in ``streamer.transformers`` (shown in errors).
        transformer: The built transformer.
    """

    name: str
    transformer: Transformer


TransformStep = SqlTransformer | PythonTransformer | PluginTransformer


def _function(reference: str) -> PythonTransformer:
    module, _, attribute = reference.partition(":")
    try:
        value: Any = importlib.import_module(module)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as e:
        raise StreamerError(f"transformer {reference!r} does not import: {type(e).__name__}: {e}") from None
    if not callable(value):
        raise StreamerError(f"transformer {reference!r} is not a function")
    return PythonTransformer(reference, value)


def _registered_name(registry: ComponentRegistry, name: str) -> str | None:
    # A Java class name resolves by its last part, as sources do (org.acme.transform.Mine -> Mine).
    for candidate in dict.fromkeys((name, name.rsplit(".", 1)[-1])):
        try:
            return registry.get(ComponentKind.TRANSFORMER, candidate).spec.name
        except UnknownComponentError:
            continue
    return None


def _unknown(name: str, registry: ComponentRegistry) -> StreamerError:
    installed = ", ".join(registry.names(ComponentKind.TRANSFORMER)) or "none"
    return StreamerError(
        f"unknown transformer {name!r} (--transformer-class): use {SQL_TRANSFORMER!r} "
        f"(SqlQueryBasedTransformer, with hoodie.streamer.transformer.sql), an installed transformer "
        f"(installed: {installed}) or a Python function as 'package.module:function'"
    )


def _options_for(entry: str, name: str, given: Mapping[str, Mapping[str, Any]]) -> tuple[str, Mapping[str, Any]]:
    """The options key of the entry ``entry`` (registered as ``name``) and its options."""
    keys = [key for key in dict.fromkeys((entry, name)) if key in given]
    if len(keys) > 1:
        raise StreamerError(
            f"streamer.transformer_options has options for transformer {entry!r} under both "
            f"{keys[0]!r} and {keys[1]!r}: give them once"
        )
    return (keys[0], given[keys[0]]) if keys else (entry, {})


def _plugin(entry: str, registry: ComponentRegistry, options: Mapping[str, Mapping[str, Any]]) -> tuple[str, Any]:
    name = _registered_name(registry, entry)
    if name is None:
        raise _unknown(entry, registry)
    key, given = _options_for(entry, name, options)
    path = f"streamer.transformer_options.{key}"
    built = registry.build(ComponentKind.TRANSFORMER, name, given, field_path=path)
    return key, PluginTransformer(entry, built)


def transformers_of(settings: HudiSettings, components: Components | None = None) -> tuple[TransformStep, ...]:
    """The configured transformers, in order, plugins built with their options.

    Args:
        settings: The job's settings (``streamer.transformers``, ``streamer.transformer_options``).
        components: The job's components (the installed transformer plugins); built from
            ``settings`` when None and a plugin is named.

    Raises:
        StreamerError: A transformer is unknown or does not import, the SQL one has no query, or
            ``streamer.transformer_options`` names no configured transformer plugin.
        PluginConfigError: A plugin's options fail its options model.
    """
    streamer = settings.streamer
    steps: list[TransformStep] = []
    used: set[str] = set()
    for entry in streamer.transformers:
        if entry in SQL_TRANSFORMER_NAMES:
            if streamer.transformer_sql is None:
                raise StreamerError(
                    f"transformer {entry!r} needs hoodie.streamer.transformer.sql (streamer.transformer_sql)"
                )
            steps.append(SqlTransformer(streamer.transformer_sql))
        elif ":" in entry:
            steps.append(_function(entry))
        else:
            if components is None:
                from hudi_framework.runtime.components import Components

                components = Components.from_settings(settings)
            key, step = _plugin(entry, components.registry, streamer.transformer_options)
            used.add(key)
            steps.append(step)
    unused = sorted(set(streamer.transformer_options) - used)
    if unused:
        raise StreamerError(
            f"streamer.transformer_options has options for {unused[0]!r}, which names no transformer plugin "
            f"in streamer.transformers {list(streamer.transformers)}"
        )
    return tuple(steps)


def transform_context(settings: HudiSettings, engine: Engine, spark: Any = None) -> TransformContext:
    """What transformers are told about the job of ``settings`` on ``engine``."""
    table = settings.table
    return TransformContext(
        engine=engine,
        table_name=table.name or "",
        base_path=table.base_path or "",
        record_key_fields=tuple(table.record_key_fields),
        partition_fields=tuple(table.partition_fields),
        ordering_fields=tuple(table.ordering_fields),
        spark=spark,
    )


def check_engine(steps: Sequence[TransformStep], engine: Engine) -> None:
    """Refuse, before any batch is read, a transformer that does not run on ``engine``.

    Raises:
        StreamerError: The SQL transformer on the local engine.
        TransformerEngineError: A plugin that does not run on ``engine``.
    """
    for step in steps:
        if isinstance(step, SqlTransformer) and engine == "local":
            raise StreamerError('the sql transformer runs on Spark: set write.engine = "spark"')
        if isinstance(step, PluginTransformer) and not step.transformer.supports(engine):
            raise TransformerEngineError(step.name, engine)


def apply_arrow(steps: Sequence[TransformStep], rows: pa.Table, context: TransformContext) -> pa.Table:
    """``rows`` through every step in order (local engine; :func:`check_engine` passed).

    Raises:
        TransformerError: A step returned something other than a ``pyarrow.Table``, or failed.
    """
    for step in steps:
        if isinstance(step, SqlTransformer):
            raise TransformerEngineError(SQL_TRANSFORMER, "local")
        if isinstance(step, PythonTransformer):
            name, rows = step.reference, step.function(rows)
        else:
            name, rows = step.name, step.transformer.transform_arrow(rows, context)
        if not isinstance(rows, pa.Table):
            raise TransformerError(name, f"returned {type(rows).__name__}, not a pyarrow.Table")
    return rows


def apply_spark(steps: Sequence[TransformStep], frame: DataFrame, context: TransformContext) -> DataFrame:
    """``frame`` through every step in order (Spark engine: ``context.spark`` is the session).

    Raises:
        StreamerError: The SQL query does not analyse.
        TransformerError: A step returned something other than a ``DataFrame``, or failed.
    """
    from pyspark.errors import PySparkException
    from pyspark.sql import DataFrame

    for step in steps:
        result: Any
        if isinstance(step, SqlTransformer):
            # A view per query: a later step's query may not see an earlier batch's rows.
            view = f"hudi_streamer_src_{uuid.uuid4().hex}"
            frame.createOrReplaceTempView(view)
            try:
                frame = context.spark.sql(step.query.replace(SRC_PLACEHOLDER, view))
            except PySparkException as e:  # an analysis error: the configured query is wrong
                raise StreamerError(f"hoodie.streamer.transformer.sql failed: {e}") from None
            continue
        if isinstance(step, PythonTransformer):
            name, result = step.reference, step.function(frame)
        else:
            name, result = step.name, step.transformer.transform_spark(frame, context)
        if not isinstance(result, DataFrame):
            raise TransformerError(name, f"returned {type(result).__name__}, not a DataFrame")
        frame = result
    return frame
