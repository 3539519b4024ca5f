"""Index plugin ``bloom`` / ``global-bloom`` (Apache Hudi ``BLOOM`` / ``GLOBAL_BLOOM``).

See ``docs/index.md`` for options and Apache Hudi compatibility.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_index_bloom.index import BloomIndex, BloomIndexOptions, GlobalBloomIndex

__all__ = ["BloomIndex", "BloomIndexOptions", "GlobalBloomIndex", "hudi_indexes"]


@hookimpl
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Register ``bloom`` and ``global-bloom``."""
    return [
        ComponentSpec(
            "bloom",
            factory=BloomIndex,
            options_model=BloomIndexOptions,
            description="Min/max key ranges and bloom filters from base file footers, per partition",
            aliases=("BLOOM",),
        ),
        ComponentSpec(
            "global-bloom",
            factory=GlobalBloomIndex,
            options_model=BloomIndexOptions,
            description="Min/max key ranges and bloom filters from base file footers, table-wide",
            aliases=("GLOBAL_BLOOM",),
        ),
    ]
