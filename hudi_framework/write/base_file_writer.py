"""Writing one Parquet base file the way Apache Hudi lays it out (format section 5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.contracts.storage import StorageBackend


@dataclass(frozen=True, slots=True)
class ParquetOptions:
    """Parquet writer settings (``hoodie.parquet.*``)."""

    compression: str = "snappy"
    compression_level: int | None = None
    row_group_bytes: int = 128 * 1024 * 1024
    page_bytes: int = 1024 * 1024
    #: Rows per row group are derived from the estimated record size; this caps them.
    max_rows_per_group: int = 1_000_000


def write_base_file(
    storage: StorageBackend,
    key: str,
    table: pa.Table,
    *,
    footer: Mapping[bytes, bytes] | None = None,
    options: ParquetOptions | None = None,
) -> int:
    """Write ``table`` (meta columns first, already filled) to ``key``; return the file size.

    Timestamps are INT64 microseconds and decimals fixed-length byte arrays, as Hudi writes them;
    ``footer`` (bloom filter, min/max record keys) goes into the file's key-value metadata.
    """
    opts = options or ParquetOptions()
    table = table.replace_schema_metadata(None)
    rows = max(1, table.num_rows)
    avg = max(1, table.nbytes // rows)
    rows_per_group = max(1, min(opts.max_rows_per_group, opts.row_group_bytes // avg))
    with storage.open_output(key) as sink:
        # No ARROW:schema blob: Hudi readers take the schema from Parquet itself, and the footer
        # stays as small as Java's.
        writer = pq.ParquetWriter(
            sink,
            table.schema,
            compression=opts.compression,
            compression_level=opts.compression_level,
            data_page_size=opts.page_bytes,
            coerce_timestamps="us",
            allow_truncated_timestamps=False,
            use_compliant_nested_type=True,
            store_schema=False,
        )
        try:
            writer.write_table(table, row_group_size=rows_per_group)
            if footer:
                writer.add_key_value_metadata({k.decode(): v.decode() for k, v in footer.items()})
        finally:
            writer.close()
    return storage.size(key)
