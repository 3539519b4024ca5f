"""Transformer plugin ``transformers-builtin``: Apache Hudi's shipped streamer transformers that
need no Spark SQL text, on both engines.

Registers ``flatten`` (Apache Hudi's ``FlatteningTransformer``: nested struct fields become top-level
``parent_child`` columns) and ``aws-dms`` (``AWSDmsTransformer``: adds the ``Op`` column AWS DMS full
loads lack, for the ``AWSDmsAvroPayload`` merger), each also under Apache Hudi's short and full class
names so HoodieStreamer's ``--transformer-class`` carries over.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.transformer import Transformer
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "AwsDmsTransformer": "hudi_transformers_builtin.aws_dms",
    "FlattenOptions": "hudi_transformers_builtin.flatten",
    "FlatteningTransformer": "hudi_transformers_builtin.flatten",
}
__all__ = [*_EXPORTS, "hudi_transformers"]
__getattr__ = lazy_exports(__name__, _EXPORTS)

_HUDI_PACKAGE = "org.apache.hudi.utilities.transform"


@hookimpl
def hudi_transformers() -> Sequence[ComponentSpec[Transformer]]:
    """Register ``flatten`` and ``aws-dms``."""
    return [
        ComponentSpec(
            "flatten",
            factory="hudi_transformers_builtin.flatten:FlatteningTransformer",
            options_model="hudi_transformers_builtin.flatten:FlattenOptions",
            description="Nested struct fields become top-level parent_child columns (arrays kept)",
            aliases=("FlatteningTransformer", f"{_HUDI_PACKAGE}.FlatteningTransformer"),
        ),
        ComponentSpec(
            "aws-dms",
            factory="hudi_transformers_builtin.aws_dms:AwsDmsTransformer",
            description="Adds an empty Op column when the batch has none (AWS DMS full loads)",
            aliases=("AWSDmsTransformer", f"{_HUDI_PACKAGE}.AWSDmsTransformer"),
        ),
    ]
