"""The transformers a streamer applies to each batch, in order: SQL queries and Python functions.

``sql`` (Apache Hudi's SqlQueryBasedTransformer, by any of its names) runs
``hoodie.streamer.transformer.sql`` over the batch, named ``<SRC>``, with Spark SQL. A
``package.module:function`` reference names a Python function that takes the batch and returns the
transformed batch: a ``pyarrow.Table`` on the local engine, a Spark ``DataFrame`` on Spark.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from hudi_framework.config.settings import HudiSettings
from hudi_framework.config.streamer import SQL_TRANSFORMER
from hudi_framework.errors import StreamerError

__all__ = ["SQL_TRANSFORMER_NAMES", "PythonTransformer", "SqlTransformer", "Transformer", "transformers_of"]

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


Transformer = SqlTransformer | PythonTransformer


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


def transformers_of(settings: HudiSettings) -> tuple[Transformer, ...]:
    """The configured transformers, in order.

    Raises:
        StreamerError: A transformer is unknown or does not import, or the SQL one has no query.
    """
    steps: list[Transformer] = []
    for name in settings.streamer.transformers:
        if name in SQL_TRANSFORMER_NAMES:
            query = settings.streamer.transformer_sql
            if query is None:
                raise StreamerError(
                    f"transformer {name!r} needs hoodie.streamer.transformer.sql (streamer.transformer_sql)"
                )
            steps.append(SqlTransformer(query))
        elif ":" in name:
            steps.append(_function(name))
        else:
            raise StreamerError(
                f"unknown transformer {name!r} (--transformer-class): use {SQL_TRANSFORMER!r} "
                "(SqlQueryBasedTransformer, with hoodie.streamer.transformer.sql) or a Python function "
                "as 'package.module:function'"
            )
    return tuple(steps)
