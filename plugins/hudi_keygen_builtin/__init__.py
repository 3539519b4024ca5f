"""Key generator plugin: Apache Hudi's built-in key generators, computed with Arrow kernels.

Components (kind ``KEYGEN``), each also reachable by Apache Hudi's type names (``SIMPLE``,
``SIMPLE_AVRO``) and class names (``org.apache.hudi.keygen.SimpleKeyGenerator``):
``simple``, ``complex``, ``non-partition``, ``timestamp``, ``custom`` and ``global-delete``. Their
options model is the kernel's :class:`~hudi_framework.contracts.keygen.KeyGenOptions`.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.keygen import KeyGenerator, KeyGenOptions
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_keygen_builtin.custom import CustomKeyGenerator
from hudi_keygen_builtin.generators import (
    ComplexKeyGenerator,
    GlobalDeleteKeyGenerator,
    NonPartitionedKeyGenerator,
    SimpleKeyGenerator,
    TimestampBasedKeyGenerator,
)

__all__ = [
    "ComplexKeyGenerator",
    "CustomKeyGenerator",
    "GlobalDeleteKeyGenerator",
    "NonPartitionedKeyGenerator",
    "SimpleKeyGenerator",
    "TimestampBasedKeyGenerator",
    "hudi_key_generators",
]

_PKG = "org.apache.hudi.keygen."


def _aliases(hudi_type: str, *classes: str) -> tuple[str, ...]:
    """Apache Hudi's type name, its ``_AVRO`` twin, and the fully qualified class names."""
    return (hudi_type, f"{hudi_type}_AVRO", *(_PKG + c for c in classes))


@hookimpl
def hudi_key_generators() -> Sequence[ComponentSpec[KeyGenerator]]:
    """Register the six built-in key generators."""
    return [
        ComponentSpec(
            "simple",
            factory=SimpleKeyGenerator,
            options_model=KeyGenOptions,
            description="One record key field as is; zero or one partition field",
            aliases=_aliases("SIMPLE", "SimpleKeyGenerator", "SimpleAvroKeyGenerator"),
        ),
        ComponentSpec(
            "complex",
            factory=ComplexKeyGenerator,
            options_model=KeyGenOptions,
            description="field:value,... record keys; any number of partition fields",
            # Spark SQL's SqlKeyGenerator falls back to ComplexKeyGenerator without an original class.
            aliases=(
                *_aliases("COMPLEX", "ComplexKeyGenerator", "ComplexAvroKeyGenerator"),
                "SPARK_SQL",
                "org.apache.spark.sql.hudi.command.SqlKeyGenerator",
            ),
        ),
        ComponentSpec(
            "non-partition",
            factory=NonPartitionedKeyGenerator,
            options_model=KeyGenOptions,
            description="Non-partitioned tables: every partition path is empty",
            aliases=_aliases("NON_PARTITION", "NonpartitionedKeyGenerator", "NonpartitionedAvroKeyGenerator"),
        ),
        ComponentSpec(
            "timestamp",
            factory=TimestampBasedKeyGenerator,
            options_model=KeyGenOptions,
            description="One partition field formatted as a timestamp (hoodie.keygen.timebased.*)",
            aliases=_aliases("TIMESTAMP", "TimestampBasedKeyGenerator", "TimestampBasedAvroKeyGenerator"),
        ),
        ComponentSpec(
            "custom",
            factory=CustomKeyGenerator,
            options_model=KeyGenOptions,
            description="Partition fields typed field:SIMPLE or field:TIMESTAMP",
            aliases=_aliases("CUSTOM", "CustomKeyGenerator", "CustomAvroKeyGenerator"),
        ),
        ComponentSpec(
            "global-delete",
            factory=GlobalDeleteKeyGenerator,
            options_model=KeyGenOptions,
            description="Deletes through a global index: field:value keys, empty partition paths",
            aliases=_aliases("GLOBAL_DELETE", "GlobalDeleteKeyGenerator", "GlobalAvroDeleteKeyGenerator"),
        ),
    ]
