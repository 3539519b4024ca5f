"""The DFS sources: files landing under a root on local disk or S3, one split per file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Final

import pyarrow as pa
from typing_extensions import override

from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import HudiError, SourceError
from hudi_sources_dfs.formats import FileFormat, decode, parquet_schema
from hudi_sources_dfs.options import CsvSourceOptions, DfsSourceOptions
from hudi_sources_dfs.selector import eligible, epoch_millis, select

#: Source name of each format.
SOURCE_NAMES: Final = {
    FileFormat.JSON: "json-dfs",
    FileFormat.CSV: "csv-dfs",
    FileFormat.PARQUET: "parquet-dfs",
    FileFormat.AVRO: "avro-dfs",
}


class DfsSource(Source):
    """New files under ``options.root`` in one format; the checkpoint is the last modification time taken (epoch ms)."""

    def __init__(self, fmt: FileFormat, options: DfsSourceOptions) -> None:
        """Read ``fmt`` files under the root ``options`` names."""
        self.format = fmt
        self.options = options
        self.name = SOURCE_NAMES[fmt]
        # The root's backend and the context it came from: opening one (an S3 client) takes longer
        # than reading a small file, and an executor reads many splits with one context.
        self._opened: tuple[SourceContext, StorageBackend] | None = None

    def __getstate__(self) -> dict[str, object]:
        # Shipped to another process: the opened backend stays behind (it holds clients).
        return {"format": self.format, "options": self.options, "name": self.name, "_opened": None}

    def _storage(self, context: SourceContext) -> StorageBackend:
        if self._opened is None or self._opened[0] is not context:
            self._opened = (context, context.storage(self.options.root))
        return self._opened[1]

    @override
    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        storage = self._storage(context)
        try:
            listed = storage.list("", recursive=True)
        except HudiError as e:
            raise SourceError(self.name, f"cannot list {self.options.root!r}: {e}") from e
        except OSError as e:
            raise SourceError(self.name, f"cannot list {self.options.root!r}: {e}") from e
        settled = epoch_millis(dt.datetime.now(dt.UTC)) - self.options.settle_ms if self.options.settle_ms else None
        selection = select(self.name, eligible(listed), checkpoint, limit, settled_before_ms=settled)
        splits = tuple(
            SourceSplit(storage.uri(f.key), {"key": f.key, "mtime_ms": f.mtime_ms}, f.size) for f in selection.files
        )
        return SourcePlan(splits, selection.checkpoint, self._footer_schema(storage, splits))

    def _footer_schema(self, storage: StorageBackend, splits: tuple[SourceSplit, ...]) -> pa.Schema | None:
        """Parquet files carry their schema in their footers: the plan gives it (the files' schemas
        unified, as the engines unify the rows'), so no engine reads the rows to learn it. Other
        formats, or a file whose footer cannot be read: None."""
        if self.format is not FileFormat.PARQUET:
            return None
        schemas: list[pa.Schema] = []
        for split in splits:
            key = str(split.payload["key"])
            try:
                found = parquet_schema(storage, key)
            except (HudiError, OSError, ValueError, pa.ArrowException):
                # Planning never judges content: the engine learns the schema from the rows, and
                # reading the file raises the error naming it (a SourceError, as for every format).
                return None
            if found is not None:
                schemas.append(found)
        return pa.unify_schemas(schemas, promote_options="permissive") if schemas else None

    @override
    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        key = split.payload.get("key")
        if not isinstance(key, str):
            raise SourceError(self.name, f"split {split.id!r} names no file key")
        try:
            # Errors surface while iterating (Parquet streams its row groups): wrap them all.
            yield from decode(self.format, self._storage(context), key, self.options)
        except (HudiError, OSError, ValueError, TypeError, pa.ArrowException) as e:
            raise SourceError(self.name, f"cannot read {self.format} file {split.id!r}: {e}") from e


def json_source(options: DfsSourceOptions) -> DfsSource:
    """``json-dfs``: JSON lines files."""
    return DfsSource(FileFormat.JSON, options)


def csv_source(options: CsvSourceOptions) -> DfsSource:
    """``csv-dfs``: CSV files, read with ``hoodie.streamer.csv.*`` options."""
    return DfsSource(FileFormat.CSV, options)


def parquet_source(options: DfsSourceOptions) -> DfsSource:
    """``parquet-dfs``: Parquet files."""
    return DfsSource(FileFormat.PARQUET, options)


def avro_source(options: DfsSourceOptions) -> DfsSource:
    """``avro-dfs``: Avro object container files."""
    return DfsSource(FileFormat.AVRO, options)
