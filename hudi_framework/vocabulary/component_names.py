"""How Apache Hudi options name pluggable components: index types, lock providers, compaction strategies.

Apache Hudi names built-in implementations by upper-case type name (``BLOOM``) or by Java class
(``org.apache.hudi.client.transaction.lock.InProcessLockProvider``); this project by kebab-case
registered name. :class:`ComponentVocabulary` maps between the two; key generators have their own
module (:mod:`hudi_framework.vocabulary.key_generators`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = [
    "COMPACTION_STRATEGIES",
    "INDEX_TYPES",
    "LOCK_PROVIDERS",
    "ComponentVocabulary",
    "HoodieValueError",
]

_KEBAB = re.compile(r"^[a-z][a-z0-9-]*$")


class HoodieValueError(ValueError):
    """An Apache Hudi option value can not be converted; the message never contains the value."""


class ComponentVocabulary:
    """How one kind of component is spelled in Apache Hudi options.

    Apache Hudi names built-in implementations by upper-case type name (``BLOOM``) or by Java class
    (``org.apache.hudi.keygen.SimpleKeyGenerator``); this project by kebab-case registered name.
    Names without a known spelling map generically (``GLOBAL_BLOOM`` <-> ``global-bloom``), so a
    third-party plugin's name still round-trips through ``to_hoodie_options``. A Java class that is
    not known is an error: it names code that can not run here.

    Attributes:
        label: What the values are, for error messages (``index type``).
        types: Upper-case type names -> registered names (irregular ones only).
        classes: Simple Java class names -> registered names.
        export: Registered names -> the value to export; generic upper-snake otherwise.
        export_classes: Whether export uses class names (lock providers) rather than type names.
    """

    def __init__(
        self,
        label: str,
        *,
        types: Mapping[str, str] | None = None,
        classes: Mapping[str, str] | None = None,
        export: Mapping[str, str] | None = None,
        export_classes: bool = False,
    ) -> None:
        self.label = label
        self.types = dict(types or {})
        self.classes = dict(classes or {})
        self.export = dict(export or {})
        self.export_classes = export_classes

    def parse(self, value: object) -> str:
        """Return the registered name for an Apache Hudi type name, class name or registered name."""
        if not isinstance(value, str) or not value.strip():
            raise HoodieValueError(f"expected a {self.label} name")
        text = value.strip()
        if text in self.classes:  # a simple Java class name without its package
            return self.classes[text]
        if "." in text:  # a Java class name; match on the simple name so shaded packages work
            simple = text.rsplit(".", 1)[-1]
            if simple in self.classes:
                return self.classes[simple]
            known = ", ".join(sorted(set(self.classes)))
            raise HoodieValueError(f"{self.label} class {simple!r} is not supported here; known: {known}")
        upper = text.upper().replace("-", "_")
        if upper in self.types:
            return self.types[upper]
        name = upper.lower().replace("_", "-")
        if not _KEBAB.match(name):
            raise HoodieValueError(f"{text!r} is not a {self.label} name")
        return name

    def render(self, name: object) -> str | None:
        """Spell a registered name for Apache Hudi options."""
        if not isinstance(name, str):
            return None
        if name in self.export:
            return self.export[name]
        if self.export_classes:
            return name  # registered names parse back unchanged
        return name.upper().replace("-", "_")


INDEX_TYPES: Final = ComponentVocabulary(
    "index type",
    types={
        "RECORD_INDEX": "record-level",
        "GLOBAL_RECORD_LEVEL_INDEX": "record-level",
        "RECORD_LEVEL_INDEX": "partitioned-record-level",
        "INMEMORY": "in-memory",
    },
    export={"record-level": "RECORD_INDEX", "partitioned-record-level": "RECORD_LEVEL_INDEX", "in-memory": "INMEMORY"},
)

LOCK_PROVIDERS: Final = ComponentVocabulary(
    "lock provider",
    classes={
        "InProcessLockProvider": "in-process",
        "StorageBasedLockProvider": "storage",
        "FileSystemBasedLockProvider": "filesystem",
        "DynamoDBBasedLockProvider": "dynamodb",
        "DynamoDBBasedImplicitPartitionKeyLockProvider": "dynamodb",
    },
    export={
        "in-process": "org.apache.hudi.client.transaction.lock.InProcessLockProvider",
        "storage": "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider",
        "dynamodb": "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider",
        "filesystem": "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
    },
    export_classes=True,
)

_STRATEGY_PACKAGE: Final = "org.apache.hudi.table.action.compact.strategy."
_COMPACTION_BY_CLASS: Final = {
    "LogFileSizeBasedCompactionStrategy": "log-file-size",
    "LogFileNumBasedCompactionStrategy": "log-file-num",
    "BoundedIOCompactionStrategy": "bounded-io",
    "UnBoundedCompactionStrategy": "unbounded",
    "DayBasedCompactionStrategy": "day-based",
    "BoundedPartitionAwareCompactionStrategy": "bounded-partition-aware",
    "UnBoundedPartitionAwareCompactionStrategy": "unbounded-partition-aware",
}
COMPACTION_STRATEGIES: Final = ComponentVocabulary(
    "compaction strategy",
    classes=_COMPACTION_BY_CLASS,
    export={name: _STRATEGY_PACKAGE + cls for cls, name in _COMPACTION_BY_CLASS.items()},
    export_classes=True,
)
