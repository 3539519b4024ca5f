"""The ``filesystem`` lock: Apache Hudi's ``FileSystemBasedLockProvider`` protocol on our storage.

* **Acquire.** Create ``<dir>/lock`` only if absent (``put_if_absent``: ``os.link`` on local disk, S3
  ``If-None-Match: *``) holding Apache Hudi's lock-info JSON (``lockCreateTime``, ``lockThreadName``:
  our writer id, ``lockStacksInfo``). A file that exists belongs to another writer, unless ``expire``
  minutes passed since it was last modified: then it is abandoned and removed (the local storage
  backend also removes the Hadoop checksum ``.lock.crc`` Apache Hudi's local writers leave beside it).
* **Release.** Delete the file, only if it still names us.
* **Fencing.** There is no lease. :meth:`FileSystemLockProvider.is_held` reads the file back: it is
  False once the file is gone or names someone else (another writer removed it as expired, or
  Apache Hudi's provider, which deletes the lock file on ``close()`` whoever holds it, did).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from typing import Final

from typing_extensions import override

from hudi_framework.contracts.lock import LockContext, LockProvider, LockProviderFactory
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import LockProviderError, PreconditionFailedError, StorageNotFoundError
from hudi_lock_filesystem.options import FileSystemLockOptions

_log = logging.getLogger(__name__)

#: The lock file's name inside its directory (Apache Hudi's ``LOCK_FILE_NAME``).
LOCK_FILE_NAME: Final = "lock"
_NAME: Final = "filesystem"
_DEFAULT_DIR: Final = ".hoodie"


def _local_path(uri: str) -> str:
    """``file:///x``, ``file:/x`` (Hadoop's spelling) and ``/x`` name the same place."""
    for prefix in ("file://", "file:"):
        if uri.startswith(prefix):
            return uri[len(prefix) :]
    return uri


def lock_directory_key(path: str | None, base_path: str) -> str:
    """The lock directory as a key under the table's base path.

    Raises:
        LockProviderError: ``path`` lies outside the table's base path (the provider writes
            through the table's own storage backend).
    """
    if path is None:
        return _DEFAULT_DIR
    base = _local_path(base_path).rstrip("/")
    target = _local_path(path).rstrip("/")
    if target == base:
        return ""
    if not target.startswith(base + "/"):
        raise LockProviderError(_NAME, f"lock path {path!r} is outside the table base path {base_path!r}")
    return target[len(base) + 1 :]


class FileSystemLockProvider(LockProvider):
    """One writer's handle on the lock file of its table."""

    def __init__(self, storage: StorageBackend, directory: str, owner: str, options: FileSystemLockOptions) -> None:
        self._storage = storage
        prefix = f"{directory}/" if directory else ""
        self._key = prefix + LOCK_FILE_NAME
        self._owner = owner
        self._options = options
        self._held = False
        self._last_holder: str | None = None

    @property
    def key(self) -> str:
        """The lock file's key relative to the table base path."""
        return self._key

    def _content(self) -> bytes:
        # Apache Hudi's LockInfo JSON; its lockCreateTime is the writer's local time, to the millisecond.
        created = dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        return json.dumps({"lockCreateTime": created, "lockThreadName": self._owner, "lockStacksInfo": []}).encode()

    def _holder(self) -> str | None:
        """Who the lock file names (``lockThreadName``), ``""`` for a file without one, None if absent."""
        try:
            data = self._storage.read(self._key)
        except StorageNotFoundError:
            return None
        try:
            info = json.loads(data)
        except ValueError:
            return ""
        name = info.get("lockThreadName") if isinstance(info, dict) else None
        return name if isinstance(name, str) else ""

    def _abandoned(self) -> bool:
        if self._options.expire == 0:
            return False
        try:
            modified = self._storage.info(self._key).modified
        except StorageNotFoundError:
            return False  # released meanwhile: the next attempt creates it
        return dt.datetime.now(dt.UTC) - modified > dt.timedelta(minutes=self._options.expire)

    def _attempt(self) -> bool:
        try:
            self._storage.put_if_absent(self._key, self._content())
        except PreconditionFailedError:
            if self._abandoned():
                _log.warning("%s: removing the lock file abandoned for over %d min", self._key, self._options.expire)
                self._storage.delete(self._key, missing_ok=True)
            self._last_holder = self._holder() or "an unnamed writer"
            return False
        self._held = True
        return True

    @override
    def try_lock(self, timeout_s: float) -> bool:
        if self._held:
            return True
        deadline = time.monotonic() + max(0.0, timeout_s)
        while not self._attempt():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(self._options.poll_interval_secs, remaining))
        return True

    @override
    def unlock(self) -> None:
        if not self._held:
            return
        self._held = False
        holder = self._holder()
        if holder == self._owner:
            self._storage.delete(self._key, missing_ok=True)
        elif holder is not None:
            _log.warning("%s: the lock file now names %r; leaving it to its holder", self._key, holder)

    @override
    def is_held(self) -> bool:
        # One small read: a lock file has no lease whose timing could answer without a request.
        return self._held and self._holder() == self._owner

    @override
    def last_holder(self) -> str | None:
        return self._last_holder


class FileSystemLockFactory(LockProviderFactory):
    """Opens :class:`FileSystemLockProvider` on each table's own storage backend."""

    def __init__(self, options: FileSystemLockOptions | None = None) -> None:
        self._options = options or FileSystemLockOptions()

    @override
    def open(self, context: LockContext) -> LockProvider:
        directory = lock_directory_key(self._options.path, context.base_path)
        return FileSystemLockProvider(context.storage, directory, context.owner, self._options)
