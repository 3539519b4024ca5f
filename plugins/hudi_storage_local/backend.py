"""The local file-system backend.

Atomicity: ``write`` goes through a temporary file in the same directory and ``os.replace``;
``put_if_absent`` publishes the finished temporary file with ``os.link``, which fails if the target
exists, so the object appears complete and exactly once. Versions are ``<mtime_ns>-<size>-<inode>``.

Temporary files are named ``.<name>.<32 hex>.tmp`` and never appear in listings, so a reader never
sees an in-flight write; a writer killed half-way leaves its temporary file, which
``list_incomplete`` reports and ``discard_incomplete`` removes. A small object written from memory
(``write``, ``put_if_absent``, ``compare_and_swap``) whose temporary file, or directory, is removed
before it is published is written again, so discarding one never fails a live writer; a stream
(``open_output``) fails to publish with :class:`~hudi_framework.errors.StorageError` instead. Only
regular files are objects: a directory is never read, stat'ed or deleted as if it were one.

Hadoop's local file system (Apache Hudi on ``file://`` paths) keeps a checksum of each file it writes
in ``.<name>.crc`` beside it and fails any read whose bytes do not match. Every write and delete here
first removes the checksum of the file it changes, so Apache Hudi reads our bytes unverified, as it
reads any file without one.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime as dt
import errno
import fcntl
import io
import os
import re
import stat
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from hudi_framework.contracts.storage import FileInfo, IncompleteWrite, StorageBackend, StorageProvider, Versioned
from hudi_framework.contracts.storage_output import PublishingOutput
from hudi_framework.contracts.storage_paths import safe_join, uri_scheme, validate_key
from hudi_framework.errors import InvalidStorageKeyError, PreconditionFailedError, StorageError, StorageNotFoundError

#: Names of the temporary files this backend writes before publishing (see ``_tmp_name``).
_TMP_NAME: Final = re.compile(r"^\.(.+)\.[0-9a-f]{32}\.tmp$")
#: How often a small write is redone after its temporary file was removed before publishing.
_REDO_ATTEMPTS: Final = 5
#: Removing a directory tree while a straggler still writes into it: attempts before giving up.
_RMTREE_ATTEMPTS: Final = 5


#: Keys of the table's metadata folder, whose directories are kept.
_METAFOLDER_PREFIX = ".hoodie/"


def _tmp_name(target: Path) -> Path:
    return target.parent / f".{target.name}.{uuid.uuid4().hex}.tmp"


def _drop_hadoop_checksum(target: Path) -> None:
    """Remove Hadoop's checksum of ``target`` (``.<name>.crc``): it would not match our bytes."""
    target.with_name(f".{target.name}.crc").unlink(missing_ok=True)


def _tmp_target(name: str) -> str | None:
    """The name of the object a temporary file would publish, or None for any other name."""
    match = _TMP_NAME.match(name)
    return match.group(1) if match else None


class LocalStorageOptions(BaseModel):
    """Options of the ``local`` backend."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: fsync files before publishing them (durability across power loss; slower).
    fsync: bool = False


class LocalStorageProvider(StorageProvider):
    """Opens :class:`LocalStorageBackend` for plain paths and ``file://`` URIs."""

    schemes = ("", "file")

    def __init__(self, options: LocalStorageOptions | None = None) -> None:
        self._options = options or LocalStorageOptions()

    def open(self, root_uri: str) -> StorageBackend:
        """Open a backend rooted at ``root_uri``."""
        return LocalStorageBackend(root_uri, self._options)


def _to_path(root_uri: str) -> Path:
    scheme = uri_scheme(root_uri)
    if scheme == "file":
        rest = root_uri[len("file://") :]
        if rest.startswith("localhost/"):
            rest = rest[len("localhost") :]
        if rest and not rest.startswith("/"):
            raise InvalidStorageKeyError(root_uri, "file:// URIs must be absolute (file:///path)")
        # RFC 8089: file URIs are percent-encoded (Path.as_uri() writes a space as %20).
        root_uri = unquote(rest)
    elif scheme:
        raise InvalidStorageKeyError(root_uri, f"scheme {scheme!r} is not served by the local backend")
    if not root_uri or "\x00" in root_uri:
        raise InvalidStorageKeyError(root_uri, "empty or NUL in local root")
    # Normalise the root once (".." in a user-given root is fine); keys themselves may never move.
    return Path(os.path.abspath(root_uri))


class LocalStorageBackend(StorageBackend):
    """A directory on the local file system."""

    small_writes_leave_incomplete = True

    def __init__(self, root_uri: str, options: LocalStorageOptions | None = None) -> None:
        self._root = _to_path(root_uri)
        self._root_str = str(self._root)
        self._options = options or LocalStorageOptions()
        # Serialises compare-and-swap within this process; across processes it is best-effort (see cas).
        self._cas_lock = threading.Lock()

    @property
    def root_uri(self) -> str:
        """The root directory."""
        return self._root_str

    def path(self, key: str) -> str:
        """Local file-system path of ``key``."""
        return safe_join(self._root_str, key)

    def uri(self, key: str) -> str:
        """Same as :meth:`path` for local files."""
        return self.path(key)

    def _file(self, key: str) -> Path:
        return Path(self.path(validate_key(key)))

    def read(self, key: str) -> bytes:
        """Read the whole file."""
        try:
            return self._file(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise StorageNotFoundError(key) from None

    def read_versioned(self, key: str) -> Versioned:
        """Read the file and its version token."""
        path = self._file(key)
        try:
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                data = f.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise StorageNotFoundError(key) from None
        return Versioned(data, _version(st))

    def _tmp_write(self, target: Path, data: bytes) -> Path:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = _tmp_name(target)
        with open(tmp, "wb") as f:
            f.write(data)
            if self._options.fsync:
                f.flush()
                os.fsync(f.fileno())
        return tmp

    def _publish_small(self, key: str, target: Path, data: bytes, publish: Callable[[Path, Path], None]) -> None:
        """Write ``data`` to a temporary file and ``publish(tmp, target)`` it; redone if the
        temporary file or its directory vanished first (removed by a sweep of incomplete writes)."""
        for _ in range(_REDO_ATTEMPTS):
            tmp: Path | None = None
            try:
                tmp = self._tmp_write(target, data)
                _drop_hadoop_checksum(target)
                publish(tmp, target)
                return
            except FileNotFoundError:
                continue
            finally:
                if tmp is not None:
                    tmp.unlink(missing_ok=True)
        raise StorageError(f"{key}: its temporary file kept vanishing before it was published")

    def write(self, key: str, data: bytes) -> None:
        """Write via a temporary file and an atomic rename."""
        self._publish_small(key, self._file(key), data, os.replace)

    def put_if_absent(self, key: str, data: bytes) -> str:
        """Publish a complete temporary file with ``os.link`` (fails if the target exists)."""
        target = self._file(key)
        try:
            self._publish_small(key, target, data, os.link)
        except FileExistsError:
            raise PreconditionFailedError(key, "already exists") from None
        return _version(os.stat(target))

    def compare_and_swap(self, key: str, data: bytes, expected_version: str) -> str:
        """Replace the file if its version is unchanged.

        The local file system has no conditional rename, so the check and the rename run under an
        exclusive ``flock`` on the file's directory (other processes, through this backend) and a
        thread lock (this process; ``flock`` is per open file, not per thread).
        """
        target = self._file(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        with self._cas_lock, _directory_lock(target.parent):
            try:
                current = _version(os.stat(target))
            except FileNotFoundError:
                raise PreconditionFailedError(key, "vanished before compare-and-swap") from None
            if current != expected_version:
                raise PreconditionFailedError(key, "changed since read")
            self._publish_small(key, target, data, os.replace)
            return _version(os.stat(target))

    def open_input(self, key: str) -> pa.NativeFile:
        """Memory-map-free random access file for pyarrow."""
        path = self._file(key)
        if path.is_dir():
            raise StorageNotFoundError(key)
        try:
            return pa.OSFile(str(path), mode="r")
        except FileNotFoundError:
            raise StorageNotFoundError(key) from None
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR) or "No such file" in str(e):
                raise StorageNotFoundError(key) from None
            raise

    def open_output(self, key: str) -> pa.NativeFile:
        """A stream to a temporary file that replaces the target when closed."""
        return PublishingOutput(_PublishOnClose(self._file(key), key))

    def list(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[FileInfo]:
        """List files (not directories, not in-flight temporary files) under ``prefix``."""
        validate_key(prefix, allow_root=True)
        base = Path(self.path(prefix))
        out: builtins.list[FileInfo] = []
        if not base.is_dir():
            return out
        # Keys are built from the prefix and the entry names (no path arithmetic per file);
        # directories are entered without following links, as os.walk does.
        pending = [(base, prefix)]
        while pending:
            directory, key = pending.pop()
            try:
                with os.scandir(directory) as it:
                    entries = list(it)
            except FileNotFoundError:
                continue  # removed by another writer meanwhile
            for entry in entries:
                rel = f"{key}/{entry.name}" if key else entry.name
                if recursive and entry.is_dir(follow_symlinks=False):
                    pending.append((Path(entry.path), rel))
                elif entry.is_file() and not _TMP_NAME.match(entry.name):
                    try:
                        out.append(_info(rel, entry.stat()))
                    except FileNotFoundError:
                        continue  # deleted by another writer between listing and stat
        return out

    def list_dirs(self, prefix: str = "") -> builtins.list[str]:
        """Direct child directories of ``prefix``."""
        validate_key(prefix, allow_root=True)
        base = Path(self.path(prefix))
        if not base.is_dir():
            return []
        with os.scandir(base) as it:
            return [f"{prefix}/{e.name}" if prefix else e.name for e in it if e.is_dir()]

    def delete(self, key: str, *, missing_ok: bool = True) -> None:
        """Delete a file; a data directory it leaves empty goes too (see :meth:`_prune_empty_parents`)."""
        path = self._file(key)
        try:
            path.unlink()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as e:
            # A directory at the key is not an object (EISDIR); a file as a parent means no object.
            if not missing_ok:
                raise StorageNotFoundError(key) from None
            if isinstance(e, FileNotFoundError) and not key.startswith(_METAFOLDER_PREFIX):
                # A writer killed between creating the directory and its file left it empty: the
                # rollback deleting the file it never wrote takes the directory.
                self._prune_empty_parents(key)
            return
        _drop_hadoop_checksum(path)
        if not key.startswith(_METAFOLDER_PREFIX):
            self._prune_empty_parents(key)

    def _prune_empty_parents(self, key: str) -> None:
        """Remove the directories above ``key`` that are empty now, up to the root.

        Outside ``.hoodie`` a directory only holds data files, as a prefix on an object store does,
        so one the last file left (a partition a rolled-back write created) is a stray. Writers
        recreate a directory that vanished under them (:meth:`_publish_small`, ``_PublishOnClose``);
        ``rmdir`` never removes a directory that is not empty.
        """
        parts = key.split("/")[:-1]
        while parts:
            try:
                os.rmdir(self._file("/".join(parts)))
            except OSError:  # not empty (the common case), or gone already
                return
            parts.pop()

    def delete_tree(self, prefix: str) -> None:
        """Remove the directory ``prefix`` with everything in it (temporary files included)."""
        root = self._file(prefix)
        if root == Path(self._root_str):
            raise InvalidStorageKeyError(prefix, "the root is never deleted")
        for _ in range(_RMTREE_ATTEMPTS):
            if _remove_tree(root):
                return
            # Something was created meanwhile (a straggling task's marker): go again.
        raise StorageError(f"{prefix}: files keep appearing while the directory is removed")

    def list_incomplete(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[IncompleteWrite]:
        """Temporary files under ``prefix`` (a writer killed before publishing left them)."""
        validate_key(prefix, allow_root=True)
        base = Path(self.path(prefix))
        if not base.is_dir():
            return []
        found: builtins.list[tuple[str, str]] = []  # (directory, file name)
        if recursive:
            found = [(d, fn) for d, _dirs, files in os.walk(base) for fn in files if _TMP_NAME.match(fn)]
        else:
            with os.scandir(base) as it:
                found = [(str(base), e.name) for e in it if e.is_file() and _TMP_NAME.match(e.name)]
        out: builtins.list[IncompleteWrite] = []
        for directory, name in found:
            full = os.path.join(directory, name)
            rel_dir = os.path.relpath(directory, self._root_str).replace(os.sep, "/")
            rel_dir = "" if rel_dir == "." else rel_dir
            target = _tmp_target(name)
            assert target is not None
            try:
                modified = dt.datetime.fromtimestamp(os.stat(full).st_mtime, tz=dt.UTC)
            except FileNotFoundError:
                continue  # published or removed meanwhile
            out.append(
                IncompleteWrite(
                    target=f"{rel_dir}/{target}" if rel_dir else target,
                    started=modified,
                    handle=f"{rel_dir}/{name}" if rel_dir else name,
                )
            )
        return out

    def discard_incomplete(self, write: IncompleteWrite) -> None:
        """Delete the temporary file."""
        if _tmp_target(write.handle.rsplit("/", 1)[-1]) is None:
            raise InvalidStorageKeyError(write.handle, "not a temporary file of this backend")
        self._file(write.handle).unlink(missing_ok=True)
        if not write.handle.startswith(_METAFOLDER_PREFIX):
            self._prune_empty_parents(write.handle)

    def exists(self, key: str) -> bool:
        """Whether a file exists at ``key``."""
        return self._file(key).is_file()

    def info(self, key: str) -> FileInfo:
        """Size and modification time."""
        try:
            st = os.stat(self._file(key))
        except (FileNotFoundError, NotADirectoryError):
            raise StorageNotFoundError(key) from None
        if not stat.S_ISREG(st.st_mode):
            raise StorageNotFoundError(key)
        return _info(key, st)


def _version(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}-{st.st_size}-{st.st_ino}"


def _info(key: str, st: os.stat_result) -> FileInfo:
    return FileInfo(key, st.st_size, dt.datetime.fromtimestamp(st.st_mtime, tz=dt.UTC))


@contextlib.contextmanager
def _directory_lock(directory: Path) -> Iterator[None]:
    """An exclusive advisory lock on ``directory`` shared by every process on this host."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _remove_tree(root: Path) -> bool:
    """Remove ``root`` bottom-up; entries someone else removed meanwhile are fine.

    Returns:
        False if a directory was not empty any more (something was created meanwhile).
    """
    for directory, _dirs, files in os.walk(root, topdown=False):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
        try:
            os.rmdir(directory)
        except FileNotFoundError:
            continue
        except OSError as e:
            if e.errno == errno.ENOTEMPTY:
                return False
            raise
    return True


class _PublishOnClose(io.RawIOBase):
    """Writes to a temporary sibling and renames it over the target on close."""

    def __init__(self, target: Path, key: str) -> None:
        super().__init__()
        self._target = target
        self._key = key
        self._tmp = _tmp_name(target)
        for attempt in range(_REDO_ATTEMPTS):
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._fh = open(self._tmp, "wb")  # noqa: SIM115 - closed in close()
                break
            except FileNotFoundError:  # the directory was removed between mkdir and open
                if attempt == _REDO_ATTEMPTS - 1:
                    raise

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        return self._fh.write(data)

    def tell(self) -> int:
        return self._fh.tell()

    def flush(self) -> None:
        if not self._fh.closed:
            self._fh.flush()

    def close(self) -> None:
        if self._fh.closed:
            return
        try:
            self._fh.close()
            try:
                _drop_hadoop_checksum(self._target)
                os.replace(self._tmp, self._target)
            except FileNotFoundError:
                raise StorageError(f"{self._key}: its temporary file was removed before it was published") from None
        finally:
            self._tmp.unlink(missing_ok=True)
            super().close()

    def discard(self) -> None:
        if not self._fh.closed:
            self._fh.close()
            self._tmp.unlink(missing_ok=True)
        if not self.closed:
            super().close()

    def __del__(self) -> None:
        # IOBase.__del__ would call close() and publish a stream its writer abandoned (for example
        # after an exception half-way through a parquet write); discard the temporary file instead.
        if getattr(self, "_fh", None) is not None:  # absent if __init__ failed to open the file
            self.discard()
