"""The storage backend contract.

A backend is bound to one root URI (normally a table's base path) and addresses objects by *keys*:
``/``-separated paths relative to that root, such as ``.hoodie/hoodie.properties``. Every key is
validated by :func:`hudi_framework.contracts.storage_paths.validate_key` before any I/O, so a backend can never
be steered outside its root.

Backends are provided by plugins through :class:`StorageProvider`, which knows the URI schemes it
serves and opens a backend for a root URI.
"""

from __future__ import annotations

import builtins
import datetime as dt
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from hudi_framework.contracts.storage_paths import validate_key
from hudi_framework.errors import InvalidStorageKeyError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pyarrow as pa

__all__ = ["FileInfo", "IncompleteWrite", "StorageBackend", "StorageProvider", "Versioned"]


@dataclass(frozen=True, slots=True)
class FileInfo:
    """One stored object.

    Attributes:
        key: Path relative to the backend root, ``/``-separated.
        size: Size in bytes.
        modified: Last modification time (UTC). Layout-1 timelines take completion times from it.
    """

    key: str
    size: int
    modified: dt.datetime

    @property
    def name(self) -> str:
        """The last path segment."""
        return self.key.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class IncompleteWrite:
    """An object write that started and was never published: what a writer killed half-way leaves
    behind, invisible to :meth:`StorageBackend.list` (a local temporary file, an S3 multipart upload
    never completed).

    Attributes:
        target: Key of the object the write would have created or replaced.
        started: When it was last written to (local: the temporary file's modification time; S3:
            the upload's initiation), UTC.
        handle: The backend's name for it (the temporary file's key; the upload id).
    """

    target: str
    started: dt.datetime
    handle: str

    @property
    def target_name(self) -> str:
        """The last path segment of :attr:`target`."""
        return self.target.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class Versioned:
    """Object content with an opaque version token usable for compare-and-swap."""

    data: bytes
    version: str


class StorageBackend(ABC):
    """Object storage rooted at one URI.

    Postconditions shared by every implementation (checked by the contract suite in
    ``tests/contract/test_storage_contract.py``):

    * ``write`` makes the whole new content visible at once (no reader sees a partial object).
    * ``put_if_absent`` succeeds for exactly one of several concurrent callers.
    * ``compare_and_swap`` succeeds only if the object still has ``expected_version``.
    * Missing objects raise :class:`~hudi_framework.errors.StorageNotFoundError`.
    * Unsafe keys raise :class:`~hudi_framework.errors.InvalidStorageKeyError` before any I/O.
    """

    #: Whether ``write``, ``put_if_absent`` and ``compare_and_swap`` of a writer that dies can leave
    #: an incomplete write (a local temporary file); backends whose small writes are atomic requests
    #: (S3 PUT) leave none, so sweeps for them can be skipped.
    small_writes_leave_incomplete: ClassVar[bool] = False

    @property
    @abstractmethod
    def root_uri(self) -> str:
        """The URI this backend is rooted at (no trailing slash)."""

    @abstractmethod
    def uri(self, key: str) -> str:
        """Full URI of ``key`` (validated)."""

    @abstractmethod
    def read(self, key: str) -> bytes:
        """Return the whole object."""

    def read_many(self, keys: Sequence[str]) -> builtins.list[bytes]:
        """Return the whole objects, in the order of ``keys`` (raising as :meth:`read` does).

        The default reads one after the other; backends whose requests wait on the network
        override it to read several at a time.
        """
        return [self.read(key) for key in keys]

    @abstractmethod
    def read_versioned(self, key: str) -> Versioned:
        """Return the object and its current version token."""

    @abstractmethod
    def write(self, key: str, data: bytes) -> None:
        """Create or replace the object atomically."""

    @abstractmethod
    def put_if_absent(self, key: str, data: bytes) -> str:
        """Create the object only if no object has this key.

        Returns:
            The version token of the new object.

        Raises:
            PreconditionFailedError: The key already exists.
        """

    @abstractmethod
    def compare_and_swap(self, key: str, data: bytes, expected_version: str) -> str:
        """Replace the object only if its version is still ``expected_version``.

        Returns:
            The new version token.

        Raises:
            PreconditionFailedError: The object changed or vanished since the version was read.
        """

    @abstractmethod
    def open_input(self, key: str) -> pa.NativeFile:
        """Open the object for random-access reading by pyarrow (parquet footers seek)."""

    @abstractmethod
    def open_output(self, key: str) -> pa.NativeFile:
        """Open a stream that creates or replaces the object when closed."""

    @abstractmethod
    def list(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[FileInfo]:
        """List objects under the directory ``prefix`` ("" is the root).

        Without ``recursive`` only direct children that are objects are returned; with it, every
        object below. Order is unspecified. A missing prefix gives an empty list.
        """

    @abstractmethod
    def list_dirs(self, prefix: str = "") -> builtins.list[str]:
        """Keys of the direct child directories (common prefixes) of ``prefix``."""

    @abstractmethod
    def delete(self, key: str, *, missing_ok: bool = True) -> None:
        """Delete the object."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Whether the object exists."""

    @abstractmethod
    def info(self, key: str) -> FileInfo:
        """Size and modification time of the object."""

    def size(self, key: str) -> int:
        """Size of the object in bytes."""
        return self.info(key).size

    def delete_tree(self, prefix: str) -> None:
        """Delete every object under the directory ``prefix`` (never the root).

        Backends with real directories remove them too, with whatever else they keep there (a
        local backend's temporary files), so nothing of the tree is left. A missing prefix is fine.

        Raises:
            InvalidStorageKeyError: ``prefix`` is the root or unsafe.
        """
        validate_key(prefix)
        for info in self.list(prefix, recursive=True):
            self.delete(info.key)

    def list_incomplete(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[IncompleteWrite]:
        """Writes whose target lies under the directory ``prefix`` that started and were never
        published (direct children of ``prefix`` unless ``recursive``).

        A live writer's write in progress is listed too: the caller decides what provably belongs to
        a dead one. The default is for backends whose writes leave nothing behind: none.
        """
        validate_key(prefix, allow_root=True)
        return []

    def discard_incomplete(self, write: IncompleteWrite) -> None:
        """Remove what an incomplete write left behind; already gone is fine.

        If its writer is still alive, publishing that write fails (a local backend re-creates the
        temporary file of a small object written from memory, so only streams fail).

        Raises:
            InvalidStorageKeyError: ``write`` is not one this backend listed (the default backend
                lists none).
        """
        raise InvalidStorageKeyError(write.handle, "not an incomplete write of this backend")


class StorageProvider(ABC):
    """What a storage plugin registers: opens backends for the URI schemes it serves."""

    #: URI schemes served, lower case; ``""`` means plain local paths.
    schemes: tuple[str, ...] = ()

    @abstractmethod
    def open(self, root_uri: str) -> StorageBackend:
        """Open a backend rooted at ``root_uri``.

        Raises:
            InvalidStorageKeyError: The URI is malformed or unsafe.
            InvalidBucketNameError: (S3) the bucket name breaks AWS rules.
        """
