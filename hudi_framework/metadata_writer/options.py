"""What a writer asks of the metadata table (MDT): the ``hoodie.metadata.*`` write options.

The write path builds one :class:`MetadataWriteOptions` from its settings and hands it to the MDT
upkeep before each write or table service. Options that decide a partition's shape (its columns,
its number of file groups) act when the partition is built: the per-instant sync then takes them
from what the MDT holds, so every writer routes and indexes the same way whatever it was told.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["MetadataWriteOptions"]


@dataclass(frozen=True, slots=True)
class MetadataWriteOptions:
    """The MDT options of one writer.

    Attributes:
        enable: ``hoodie.metadata.enable``: keep an MDT (False deletes it).
        enable_given: Whether ``enable`` was set rather than defaulted: the default keeps no MDT on
            tables that cannot have one we write (version 6), a given ``true`` fails there.
        compact_max_delta_commits: ``hoodie.metadata.compact.max.delta.commits``.
        partitions: MDT partition name -> enabled, for every partition a builder can keep in step
            (``files`` is on whenever ``enable`` is). A listed partition that is absent or False
            here is dropped.
        values: Further ``hoodie.metadata.*`` options by Apache Hudi key, as text (what each
            partition builder reads at its partition's init: columns, file-group counts).
    """

    enable: bool = False
    enable_given: bool = True
    compact_max_delta_commits: int = 10
    partitions: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def enabled(self, partition: str) -> bool:
        """Whether ``partition`` is to be kept (``files`` always is when the MDT is on)."""
        return self.enable and (partition == "files" or bool(self.partitions.get(partition, False)))

    def text(self, key: str) -> str | None:
        """An option's text, or None when unset."""
        return self.values.get(key)

    def integer(self, key: str, default: int) -> int:
        """An integer option, ``default`` when unset."""
        value = self.values.get(key)
        return default if value is None or value == "" else int(value)
