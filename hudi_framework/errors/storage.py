"""Storage errors."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = [
    "InvalidBucketNameError",
    "InvalidStorageKeyError",
    "PreconditionFailedError",
    "StorageError",
    "StorageNotFoundError",
]


class StorageError(HudiError):
    """A storage operation failed."""


class StorageNotFoundError(StorageError, FileNotFoundError):
    """The object or file does not exist."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"not found: {key!r}")

    def __str__(self) -> str:
        return str(self.args[0])


class PreconditionFailedError(StorageError):
    """A conditional write lost: the object exists, or changed since it was read."""

    def __init__(self, key: str, reason: str = "precondition failed") -> None:
        self.key = key
        super().__init__(f"{reason}: {key!r}")


class InvalidStorageKeyError(StorageError, ValueError):
    """A key or path is unsafe (traversal, empty segment, control character) or malformed."""

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"invalid storage key {key!r}: {reason}")


class InvalidBucketNameError(StorageError, ValueError):
    """An S3 bucket name breaks AWS naming rules."""

    def __init__(self, bucket: str, reason: str) -> None:
        self.bucket = bucket
        super().__init__(f"invalid S3 bucket name {bucket!r}: {reason}")
