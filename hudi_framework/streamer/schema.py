"""The schema a streamer batch is written with: a schema file's, the source's, or the rows' own.

Apache Hudi's FilebasedSchemaProvider reads an Avro schema file
(``hoodie.streamer.schemaprovider.source.schema.file``); every batch is then cast to it: its columns
in the file's order and types, columns the rows lack filled with nulls (when nullable), columns the
file does not name dropped (:func:`hudi_framework.model.conform.conform`). Without a file, a
source that knows its schema before reading (Parquet, Avro, a schema registry: ``SourcePlan.schema``)
gives it; otherwise the rows read decide.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

import pyarrow as pa

from hudi_framework.contracts.source import SourceContext
from hudi_framework.errors import ConfigError, HudiError
from hudi_framework.model.schema import avro_to_arrow

__all__ = ["read_schema_file"]


def read_schema_file(location: str, context: SourceContext) -> pa.Schema:
    """The Arrow schema of the Avro schema file at ``location`` (a local path or a storage URI).

    Raises:
        ConfigError: The file cannot be read or is not an Avro record schema (naming the option).
    """
    try:
        if "://" in location:
            parent, name = posixpath.split(location.rstrip("/"))
            text = context.storage(parent).read(name).decode("utf-8")
        else:
            text = Path(location).read_text(encoding="utf-8")
        return avro_to_arrow(text)
    except (OSError, ValueError, HudiError) as e:
        raise ConfigError(
            f"hoodie.streamer.schemaprovider.source.schema.file {location!r}: not a readable Avro record schema ({e})"
        ) from None
