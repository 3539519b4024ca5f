"""Index plugin ``bloom`` / ``global-bloom`` (Apache Hudi ``BLOOM`` / ``GLOBAL_BLOOM``).

See ``docs/index.md`` for options and Apache Hudi compatibility.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "BloomIndex": "hudi_index_bloom.index",
    "BloomIndexOptions": "hudi_index_bloom.index",
    "GlobalBloomIndex": "hudi_index_bloom.index",
}
__all__ = [*_EXPORTS, "hudi_indexes"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Register ``bloom`` and ``global-bloom``."""
    return [
        ComponentSpec(
            "bloom",
            factory="hudi_index_bloom.index:BloomIndex",
            options_model="hudi_index_bloom.index:BloomIndexOptions",
            description="Min/max key ranges and bloom filters from base file footers, per partition",
            aliases=("BLOOM",),
        ),
        ComponentSpec(
            "global-bloom",
            factory="hudi_index_bloom.index:GlobalBloomIndex",
            options_model="hudi_index_bloom.index:BloomIndexOptions",
            description="Min/max key ranges and bloom filters from base file footers, table-wide",
            aliases=("GLOBAL_BLOOM",),
        ),
    ]
