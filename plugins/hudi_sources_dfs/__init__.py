"""Source plugin ``sources-dfs``: files landing on local disk or S3 (Apache Hudi's ``*DFSSource``).

Registers ``json-dfs``, ``csv-dfs``, ``parquet-dfs`` and ``avro-dfs``, each also under Apache Hudi's
short and full class names (``JsonDFSSource``, ``org.apache.hudi.utilities.sources.JsonDFSSource``...)
so HoodieStreamer's ``--source-class`` carries over. New files are found by listing the root
(:mod:`hudi_sources_dfs.selector`); the checkpoint is the last modification time taken, in epoch ms.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.source import Source
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "CsvSourceOptions": "hudi_sources_dfs.options",
    "DfsSource": "hudi_sources_dfs.source",
    "DfsSourceOptions": "hudi_sources_dfs.options",
    "FileFormat": "hudi_sources_dfs.formats",
}
__all__ = [*_EXPORTS, "hudi_sources"]
__getattr__ = lazy_exports(__name__, _EXPORTS)

_HUDI_PACKAGE = "org.apache.hudi.utilities.sources"


def _spec(name: str, factory: str, hudi_class: str, description: str, options: str) -> ComponentSpec[Source]:
    return ComponentSpec(
        name,
        factory=f"hudi_sources_dfs.source:{factory}",
        options_model=f"hudi_sources_dfs.options:{options}",
        description=description,
        aliases=(hudi_class, f"{_HUDI_PACKAGE}.{hudi_class}"),
    )


@hookimpl
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    """Register the four DFS sources."""
    return [
        _spec("json-dfs", "json_source", "JsonDFSSource", "JSON lines files landing under a root", "DfsSourceOptions"),
        _spec("csv-dfs", "csv_source", "CsvDFSSource", "CSV files landing under a root", "CsvSourceOptions"),
        _spec(
            "parquet-dfs",
            "parquet_source",
            "ParquetDFSSource",
            "Parquet files landing under a root",
            "DfsSourceOptions",
        ),
        _spec(
            "avro-dfs", "avro_source", "AvroDFSSource", "Avro container files landing under a root", "DfsSourceOptions"
        ),
    ]
