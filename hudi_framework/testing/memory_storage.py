"""An in-memory :class:`StorageBackend` for tests: S3-like semantics, no I/O at all.

Keys are flat like S3 object keys; "directories" exist only as prefixes of keys. Every operation
holds one lock, so conditional writes are exactly atomic. Backends opened on one
:class:`MemoryStore` share objects, as two clients of one bucket do.
"""

from __future__ import annotations

import builtins
import datetime as dt
import io
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import pyarrow as pa

from hudi_framework.contracts.storage import FileInfo, StorageBackend, StorageProvider, Versioned
from hudi_framework.contracts.storage_output import PublishingOutput
from hudi_framework.contracts.storage_paths import safe_join, uri_scheme, validate_key
from hudi_framework.errors import InvalidStorageKeyError, PreconditionFailedError, StorageNotFoundError

if TYPE_CHECKING:
    from typing_extensions import Buffer

__all__ = ["MemoryStorageBackend", "MemoryStorageProvider", "MemoryStore"]

SCHEME: Final = "memory"


@dataclass(frozen=True, slots=True)
class _Object:
    data: bytes
    version: str
    modified: dt.datetime


class MemoryStore:
    """Objects keyed by full URI, shared by every backend opened on the store."""

    def __init__(self) -> None:
        """Create an empty store."""
        self.lock = threading.RLock()
        self.objects: dict[str, _Object] = {}
        #: Number of object reads and writes so far; tests assert it stays 0 when input is rejected.
        self.io_count = 0

    def put(self, uri: str, data: bytes) -> str:
        """Store ``data`` under ``uri`` (caller holds :attr:`lock`) and return its new version."""
        version = uuid.uuid4().hex
        self.objects[uri] = _Object(bytes(data), version, dt.datetime.now(dt.UTC))
        self.io_count += 1
        return version


class MemoryStorageProvider(StorageProvider):
    """Opens :class:`MemoryStorageBackend` for ``memory://name/prefix`` URIs on one shared store."""

    schemes = (SCHEME,)

    def __init__(self, store: MemoryStore | None = None) -> None:
        """Create a provider over ``store`` (a fresh one by default)."""
        self.store = store or MemoryStore()

    def open(self, root_uri: str) -> StorageBackend:
        """Open a backend rooted at ``root_uri``."""
        return MemoryStorageBackend(root_uri, self.store)


class MemoryStorageBackend(StorageBackend):
    """Objects under ``memory://name/prefix`` in a :class:`MemoryStore`."""

    def __init__(self, root_uri: str = "memory://test", store: MemoryStore | None = None) -> None:
        """Create a backend.

        Raises:
            InvalidStorageKeyError: ``root_uri`` is not a safe ``memory://`` URI.
        """
        if uri_scheme(root_uri) != SCHEME:
            raise InvalidStorageKeyError(root_uri, "expected a memory:// URI")
        rest = root_uri.split("://", 1)[1].rstrip("/")
        try:
            validate_key(rest)
        except InvalidStorageKeyError as e:
            raise InvalidStorageKeyError(root_uri, f"unsafe root: {e.reason}") from None
        self._root = f"{SCHEME}://{rest}"
        self.store = store or MemoryStore()

    def __repr__(self) -> str:
        return f"MemoryStorageBackend({self._root!r})"

    @property
    def root_uri(self) -> str:
        """The root URI."""
        return self._root

    def uri(self, key: str) -> str:
        """Full URI of ``key`` (``""`` gives the root)."""
        validate_key(key, allow_root=True)
        full = safe_join(self._root, key)
        # Like S3: a join that drops part of the key ('?', '#') would alias two keys.
        if full != (f"{self._root}/{key}" if key else self._root):
            raise InvalidStorageKeyError(key, "does not map to exactly one object")
        return full

    def _get(self, key: str) -> _Object:
        uri = self.uri(validate_key(key))
        with self.store.lock:
            self.store.io_count += 1
            obj = self.store.objects.get(uri)
        if obj is None:
            raise StorageNotFoundError(key)
        return obj

    def read(self, key: str) -> bytes:
        """The object's bytes."""
        return self._get(key).data

    def read_versioned(self, key: str) -> Versioned:
        """The object's bytes and version."""
        obj = self._get(key)
        return Versioned(obj.data, obj.version)

    def write(self, key: str, data: bytes) -> None:
        """Create or replace the object."""
        uri = self.uri(validate_key(key))
        with self.store.lock:
            self.store.put(uri, data)

    def put_if_absent(self, key: str, data: bytes) -> str:
        """Create the object unless it exists."""
        uri = self.uri(validate_key(key))
        with self.store.lock:
            if uri in self.store.objects:
                raise PreconditionFailedError(key, "already exists")
            return self.store.put(uri, data)

    def compare_and_swap(self, key: str, data: bytes, expected_version: str) -> str:
        """Replace the object if its version is still ``expected_version``."""
        uri = self.uri(validate_key(key))
        with self.store.lock:
            current = self.store.objects.get(uri)
            if current is None:
                raise PreconditionFailedError(key, "vanished before compare-and-swap")
            if current.version != expected_version:
                raise PreconditionFailedError(key, "changed since read")
            return self.store.put(uri, data)

    def open_input(self, key: str) -> pa.NativeFile:
        """A buffer reader over the object's bytes."""
        return pa.BufferReader(self._get(key).data)

    def open_output(self, key: str) -> pa.NativeFile:
        """A stream that stores the object when closed."""
        uri = self.uri(validate_key(key))

        def commit(data: bytes) -> None:
            with self.store.lock:
                self.store.put(uri, data)

        return PublishingOutput(_CommitOnClose(commit))

    def _children(self, prefix: str) -> tuple[builtins.list[FileInfo], set[str]]:
        validate_key(prefix, allow_root=True)
        base = self.uri(prefix) + "/"
        rel_base = f"{prefix}/" if prefix else ""
        files: builtins.list[FileInfo] = []
        dirs: set[str] = set()
        with self.store.lock:
            self.store.io_count += 1
            items = [(u, o) for u, o in self.store.objects.items() if u.startswith(base)]
        for uri, obj in items:
            rest = uri[len(base) :]
            head, sep, _ = rest.partition("/")
            files.append(FileInfo(rel_base + rest, len(obj.data), obj.modified))
            if sep:
                dirs.add(rel_base + head)
        return files, dirs

    def list(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[FileInfo]:
        """Objects under ``prefix``; direct children only unless ``recursive``."""
        files, _ = self._children(prefix)
        if recursive:
            return files
        depth = prefix.count("/") + 1 if prefix else 0
        return [f for f in files if f.key.count("/") == depth]

    def list_dirs(self, prefix: str = "") -> builtins.list[str]:
        """Direct child "directories" (key prefixes) of ``prefix``."""
        return sorted(self._children(prefix)[1])

    def delete(self, key: str, *, missing_ok: bool = True) -> None:
        """Delete the object."""
        uri = self.uri(validate_key(key))
        with self.store.lock:
            self.store.io_count += 1
            if self.store.objects.pop(uri, None) is None and not missing_ok:
                raise StorageNotFoundError(key)

    def exists(self, key: str) -> bool:
        """Whether the object exists."""
        try:
            self._get(key)
        except StorageNotFoundError:
            return False
        return True

    def info(self, key: str) -> FileInfo:
        """Size and modification time."""
        obj = self._get(key)
        return FileInfo(key, len(obj.data), obj.modified)


class _CommitOnClose(io.RawIOBase):
    """Collects writes and hands the whole content to ``commit`` on close()."""

    def __init__(self, commit: Callable[[bytes], None]) -> None:
        super().__init__()
        self._commit = commit
        self._buf = io.BytesIO()

    def writable(self) -> bool:
        return True

    def write(self, data: Buffer) -> int:
        return self._buf.write(data)

    def tell(self) -> int:
        return self._buf.tell()

    def close(self) -> None:
        if not self.closed:
            try:
                self._commit(self._buf.getvalue())
            finally:
                super().close()

    def discard(self) -> None:
        if not self.closed:
            super().close()

    def __del__(self) -> None:
        # IOBase.__del__ would close() and so publish a stream its writer abandoned.
        self.discard()
