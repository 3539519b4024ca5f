"""Source plugin ``sources-hudi``: ``hudi-incr``, the incremental stream of another Hudi table.

Registered also as Apache Hudi's ``HoodieIncrSource`` and
``org.apache.hudi.utilities.sources.HoodieIncrSource``. Its checkpoint is the last completion time
read (table version 8 and later; the last instant time on version 6).
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.source import Source
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "HoodieIncrOptions": "hudi_sources_hudi.options",
    "HoodieIncrSource": "hudi_sources_hudi.source",
    "MissingCheckpointStrategy": "hudi_sources_hudi.options",
}
__all__ = [*_EXPORTS, "hudi_sources"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    """Register ``hudi-incr``."""
    return [
        ComponentSpec(
            "hudi-incr",
            factory="hudi_sources_hudi.source:hoodie_incr_source",
            options_model="hudi_sources_hudi.options:HoodieIncrOptions",
            description="The incremental stream of another Hudi table, by completion time (HoodieIncrSource)",
            aliases=("HoodieIncrSource", "org.apache.hudi.utilities.sources.HoodieIncrSource"),
        )
    ]
