"""``acme-source``: a third-party ingestion source plugin for hudi_framework (entry point ``acme-source``).

It registers ``acme-pages`` (also as ``acme_source.PagesSource``): numbered JSON pages an export job
drops in a folder, checkpointed by page number.
"""

from __future__ import annotations

from collections.abc import Sequence

from acme_source.pages import PagesOptions, PagesSource
from hudi_framework.contracts.source import Source
from hudi_framework.plugin import ComponentSpec, hookimpl

__all__ = ["PagesOptions", "PagesSource", "hudi_sources"]


@hookimpl
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    """Register ``acme-pages``."""
    return [
        ComponentSpec(
            "acme-pages",
            factory=PagesSource,
            options_model=PagesOptions,
            description="Numbered JSON pages an export job drops in a folder",
            aliases=("acme_source.PagesSource",),
        )
    ]
