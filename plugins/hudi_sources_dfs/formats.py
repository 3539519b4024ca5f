"""Decoding one landing file into Arrow record batches, per format."""

from __future__ import annotations

import enum
import io
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from hudi_framework.contracts.storage import StorageBackend
from hudi_sources_dfs.avro_files import read_avro_batches
from hudi_sources_dfs.options import CsvSourceOptions, DfsSourceOptions


class FileFormat(enum.StrEnum):
    """The formats of the DFS sources."""

    JSON = "json"
    CSV = "csv"
    PARQUET = "parquet"
    AVRO = "avro"


def decode(fmt: FileFormat, storage: StorageBackend, key: str, options: DfsSourceOptions) -> Iterator[pa.RecordBatch]:
    """The rows of the file ``key`` as record batches of one schema.

    Raises:
        Exception: Whatever the format's decoder raises for content it cannot read; the source wraps
            it into a ``SourceError`` naming the file.
    """
    if fmt is FileFormat.PARQUET:
        # Row group by row group, through a random-access stream: a large file never sits in memory.
        with storage.open_input(key) as stream:
            yield from pq.ParquetFile(stream).iter_batches()
        return
    data = storage.read(key)
    if fmt is FileFormat.JSON:
        # JSON lines, one object per line; types inferred from the file, as Spark's JSON reader does.
        yield from pa_json.read_json(io.BytesIO(data)).to_batches()
    elif fmt is FileFormat.CSV:
        if not isinstance(options, CsvSourceOptions):
            raise TypeError("CSV needs CSV options")
        yield from _csv(data, options).to_batches()
    else:
        yield from read_avro_batches(io.BytesIO(data))


def parquet_schema(storage: StorageBackend, key: str) -> pa.Schema | None:
    """The Arrow schema in the footer of the Parquet file ``key`` (None: the file holds no row, as
    the rows read would not show one either). Only the footer is read."""
    with storage.open_input(key) as stream:
        footer = pq.ParquetFile(stream)
        return footer.schema_arrow if footer.metadata.num_rows else None


def _csv(data: bytes, options: CsvSourceOptions) -> pa.Table:
    read = pa_csv.ReadOptions(autogenerate_column_names=not options.header, encoding=options.encoding)
    parse = pa_csv.ParseOptions(
        delimiter=options.sep,
        quote_char=options.quote,
        escape_char=options.escape if options.escape != options.quote else False,
        double_quote=options.escape == options.quote,
        newlines_in_values=options.multi_line,
    )
    convert = pa_csv.ConvertOptions(
        null_values=[options.null_value],
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
    )
    if not options.infer_schema:
        # Every column as text, exactly as written: take the names from a first look, then read as strings.
        names = pa_csv.open_csv(io.BytesIO(data), read_options=read, parse_options=parse).schema.names
        convert = pa_csv.ConvertOptions(
            null_values=[options.null_value],
            strings_can_be_null=True,
            column_types=dict.fromkeys(names, pa.string()),
        )
    table = pa_csv.read_csv(io.BytesIO(data), read_options=read, parse_options=parse, convert_options=convert)
    if not options.header:
        # Spark's names for headerless columns.
        table = table.rename_columns([f"_c{i}" for i in range(table.num_columns)])
    return table
