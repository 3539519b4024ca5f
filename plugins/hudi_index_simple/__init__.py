"""Index plugin ``simple`` / ``global-simple`` (Apache Hudi ``SIMPLE`` / ``GLOBAL_SIMPLE``).

See ``docs/index.md`` for options and Apache Hudi compatibility.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_index_simple.index import GlobalSimpleIndex, SimpleIndex, SimpleIndexOptions

__all__ = ["GlobalSimpleIndex", "SimpleIndex", "SimpleIndexOptions", "hudi_indexes"]


@hookimpl
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Register ``simple`` and ``global-simple``."""
    return [
        ComponentSpec(
            "simple",
            factory=SimpleIndex,
            options_model=SimpleIndexOptions,
            description="Join incoming keys with the keys of the latest base files of their partition",
            aliases=("SIMPLE",),
        ),
        ComponentSpec(
            "global-simple",
            factory=GlobalSimpleIndex,
            options_model=SimpleIndexOptions,
            description="Join incoming keys with the keys of every latest base file (keys unique table-wide)",
            aliases=("GLOBAL_SIMPLE",),
        ),
    ]
