"""``acme-source``: a third-party ingestion source plugin for hudi_framework (entry point ``acme-source``).

It registers the source ``acme-pages`` (also as ``acme_source.PagesSource``): numbered JSON pages an
export job drops in a folder, checkpointed by page number; and the transformer ``acme-upper`` (also
as ``acme_source.UpperTransformer``), which upper-cases the text columns its options name.
"""

from __future__ import annotations

from collections.abc import Sequence

from acme_source.pages import PagesOptions, PagesSource
from acme_source.upper import UpperOptions, UpperTransformer
from hudi_framework.contracts.source import Source
from hudi_framework.contracts.transformer import Transformer
from hudi_framework.plugin import ComponentSpec, hookimpl

__all__ = ["PagesOptions", "PagesSource", "UpperOptions", "UpperTransformer", "hudi_sources", "hudi_transformers"]


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


@hookimpl
def hudi_transformers() -> Sequence[ComponentSpec[Transformer]]:
    """Register ``acme-upper``."""
    return [
        ComponentSpec(
            "acme-upper",
            factory=UpperTransformer,
            options_model=UpperOptions,
            description="Upper-cases the text columns its options name",
            aliases=("acme_source.UpperTransformer",),
        )
    ]
