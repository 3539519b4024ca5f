"""Key generator plugin: Apache Hudi's built-in key generators, computed with Arrow kernels.

Components (kind ``KEYGEN``), each also reachable by Apache Hudi's type names (``SIMPLE``,
``SIMPLE_AVRO``) and class names (``org.apache.hudi.keygen.SimpleKeyGenerator``):
``simple``, ``complex``, ``non-partition``, ``timestamp``, ``custom`` and ``global-delete``. Their
options model is :class:`KeyGenOptions`: the table's key settings
(:class:`~hudi_framework.contracts.keygen.TableKeySettings`) as the kernel passes them, validated.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports
from hudi_framework.vocabulary import BUILTIN_KEY_GENERATORS, KEY_GENERATOR_PACKAGE
from hudi_keygen_builtin.options import KeyGenOptions

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "ComplexKeyGenerator": "hudi_keygen_builtin.generators",
    "CustomKeyGenerator": "hudi_keygen_builtin.custom",
    "GlobalDeleteKeyGenerator": "hudi_keygen_builtin.generators",
    "NonPartitionedKeyGenerator": "hudi_keygen_builtin.generators",
    "SimpleKeyGenerator": "hudi_keygen_builtin.generators",
    "TimestampBasedKeyGenerator": "hudi_keygen_builtin.generators",
}
__all__ = [*_EXPORTS, "KeyGenOptions", "hudi_key_generators"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


def _aliases(component: str) -> tuple[str, ...]:
    """Apache Hudi's type name, its ``_AVRO`` twin, and the fully qualified class names."""
    known = next(k for k in BUILTIN_KEY_GENERATORS if k.component == component)
    return (known.type_name, f"{known.type_name}_AVRO", *(KEY_GENERATOR_PACKAGE + c for c in known.classes))


@hookimpl
def hudi_key_generators() -> Sequence[ComponentSpec[KeyGenerator]]:
    """Register the six built-in key generators."""
    return [
        ComponentSpec(
            "simple",
            factory="hudi_keygen_builtin.generators:SimpleKeyGenerator",
            options_model=KeyGenOptions,
            description="One record key field as is; zero or one partition field",
            aliases=_aliases("simple"),
        ),
        ComponentSpec(
            "complex",
            factory="hudi_keygen_builtin.generators:ComplexKeyGenerator",
            options_model=KeyGenOptions,
            description="field:value,... record keys; any number of partition fields",
            # Spark SQL's SqlKeyGenerator falls back to ComplexKeyGenerator without an original class.
            aliases=(
                *_aliases("complex"),
                "SPARK_SQL",
                "org.apache.spark.sql.hudi.command.SqlKeyGenerator",
            ),
        ),
        ComponentSpec(
            "non-partition",
            factory="hudi_keygen_builtin.generators:NonPartitionedKeyGenerator",
            options_model=KeyGenOptions,
            description="Non-partitioned tables: every partition path is empty",
            aliases=_aliases("non-partition"),
        ),
        ComponentSpec(
            "timestamp",
            factory="hudi_keygen_builtin.generators:TimestampBasedKeyGenerator",
            options_model=KeyGenOptions,
            description="One partition field formatted as a timestamp (hoodie.keygen.timebased.*)",
            aliases=_aliases("timestamp"),
        ),
        ComponentSpec(
            "custom",
            factory="hudi_keygen_builtin.custom:CustomKeyGenerator",
            options_model=KeyGenOptions,
            description="Partition fields typed field:SIMPLE or field:TIMESTAMP",
            aliases=_aliases("custom"),
        ),
        ComponentSpec(
            "global-delete",
            factory="hudi_keygen_builtin.generators:GlobalDeleteKeyGenerator",
            options_model=KeyGenOptions,
            description="Deletes through a global index: field:value keys, empty partition paths",
            aliases=_aliases("global-delete"),
        ),
    ]
