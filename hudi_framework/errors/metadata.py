"""Metadata table (MDT) errors: keys that do not decode, an MDT that cannot be used, an index that
cannot be built."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = ["IndexingError", "MetadataKeyError", "MetadataTableError", "MetadataTableUnusableError"]


class MetadataTableError(HudiError):
    """The metadata table cannot be read or used."""


class MetadataKeyError(MetadataTableError, ValueError):
    """A metadata-table record key is not the encoding its partition uses.

    Attributes:
        key: The key.
    """

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        super().__init__(f"metadata table key {key!r} does not decode: {reason}")


class MetadataTableUnusableError(MetadataTableError):
    """The metadata table is missing, partial, corrupt or out of sync with the data timeline.

    Readers catch it and list storage instead; it reaches callers that ask the MDT directly.

    Attributes:
        reason: Why the MDT cannot serve the request.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"the metadata table cannot be used: {reason}")


class IndexingError(MetadataTableError):
    """An ``indexing`` action (building an MDT partition asynchronously) cannot go on.

    Attributes:
        partition: The MDT partition being built.
        reason: Why.
    """

    def __init__(self, partition: str, reason: str) -> None:
        self.partition = partition
        self.reason = reason
        super().__init__(f"cannot build the metadata table's {partition!r} index: {reason}")
