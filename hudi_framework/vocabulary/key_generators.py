"""Apache Hudi's key generators: type names, Java classes and this project's registered names.

``hoodie.properties`` names the key generator by type (``hoodie.table.keygenerator.type``, v8+) or by
Java class (``hoodie.table.keygenerator.class``, v6); writer options by either; settings by registered
component name (``simple``, ``non-partition``...). One table holds all three spellings
(``KeyGeneratorType`` in Apache Hudi), so every path reads every spelling alike.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final, NamedTuple

from hudi_framework.vocabulary.component_names import ComponentVocabulary, HoodieValueError
from hudi_framework.vocabulary.hudi_enum import normalize_name

__all__ = [
    "BUILTIN_KEY_GENERATORS",
    "KEY_GENERATORS",
    "KEY_GENERATOR_PACKAGE",
    "BuiltinKeyGenerator",
    "key_generator_class",
    "key_generator_component",
    "key_generator_type",
    "key_generator_type_of_class",
]

#: Package of the built-in key generator classes.
KEY_GENERATOR_PACKAGE: Final = "org.apache.hudi.keygen."


class BuiltinKeyGenerator(NamedTuple):
    """One built-in key generator in every spelling."""

    type_name: str
    """``KeyGeneratorType`` name (``hoodie.table.keygenerator.type``); its ``_AVRO`` twin means the same."""
    component: str
    """Registered component name."""
    classes: tuple[str, ...]
    """Simple Java class names; the first is the one a version-6 table persists."""


BUILTIN_KEY_GENERATORS: Final = (
    BuiltinKeyGenerator("SIMPLE", "simple", ("SimpleKeyGenerator", "SimpleAvroKeyGenerator")),
    BuiltinKeyGenerator("COMPLEX", "complex", ("ComplexKeyGenerator", "ComplexAvroKeyGenerator")),
    BuiltinKeyGenerator(
        "NON_PARTITION", "non-partition", ("NonpartitionedKeyGenerator", "NonpartitionedAvroKeyGenerator")
    ),
    BuiltinKeyGenerator("TIMESTAMP", "timestamp", ("TimestampBasedKeyGenerator", "TimestampBasedAvroKeyGenerator")),
    BuiltinKeyGenerator("CUSTOM", "custom", ("CustomKeyGenerator", "CustomAvroKeyGenerator")),
    # The Avro twin's class is GlobalAvroDeleteKeyGenerator, not GlobalDeleteAvroKeyGenerator.
    BuiltinKeyGenerator("GLOBAL_DELETE", "global-delete", ("GlobalDeleteKeyGenerator", "GlobalAvroDeleteKeyGenerator")),
)

#: Spark SQL's ``SqlKeyGenerator`` (type ``SPARK_SQL``) without an original class computes what
#: ``ComplexKeyGenerator`` computes.
_SPARK_SQL_TYPE: Final = "SPARK_SQL"
_SPARK_SQL_CLASS: Final = "SqlKeyGenerator"
_COMPLEX: Final = "complex"

_TYPE_BY_CLASS: Final = MappingProxyType(
    {cls: k.type_name for k in BUILTIN_KEY_GENERATORS for cls in k.classes} | {_SPARK_SQL_CLASS: "COMPLEX"}
)
_CLASS_BY_TYPE: Final = MappingProxyType({k.type_name: k.classes[0] for k in BUILTIN_KEY_GENERATORS})
_TYPE_BY_COMPONENT: Final = MappingProxyType({k.component: k.type_name for k in BUILTIN_KEY_GENERATORS})

KEY_GENERATORS: Final = ComponentVocabulary(
    "key generator",
    types={f"{k.type_name}_AVRO": k.component for k in BUILTIN_KEY_GENERATORS}
    | {_SPARK_SQL_TYPE: _COMPLEX, "NONPARTITIONED": "non-partition"},
    classes={cls: k.component for k in BUILTIN_KEY_GENERATORS for cls in k.classes} | {_SPARK_SQL_CLASS: _COMPLEX},
)


def key_generator_component(name: str) -> str:
    """The registered component for an Apache Hudi key generator type, class or registered name.

    ``SIMPLE``, ``SIMPLE_AVRO`` and ``org.apache.hudi.keygen.SimpleKeyGenerator`` give ``simple``;
    Spark SQL's ``SqlKeyGenerator`` gives ``complex``. A name with no built-in meaning is returned
    unchanged, for a plugin's alias to match.
    """
    text = name.strip()
    try:
        return KEY_GENERATORS.parse(text)
    except HoodieValueError:
        return text


def key_generator_type(component: str) -> str:
    """The ``hoodie.table.keygenerator.type`` of a key generator given by any of its names."""
    name = key_generator_component(component)
    return _TYPE_BY_COMPONENT.get(name, normalize_name(name))


def key_generator_type_of_class(class_name: str) -> str:
    """The type name of an Apache Hudi key generator class (fully qualified or simple name).

    A class without a built-in type gives its simple name upper-cased, for a plugin's alias to match.
    """
    simple = class_name.rsplit(".", 1)[-1]
    return _TYPE_BY_CLASS.get(simple, simple.upper())


def key_generator_class(type_name: str) -> str:
    """The fully qualified class a version-6 table persists for a key generator type."""
    base = type_name.upper().removesuffix("_AVRO")
    return KEY_GENERATOR_PACKAGE + _CLASS_BY_TYPE.get(base, "SimpleKeyGenerator")
