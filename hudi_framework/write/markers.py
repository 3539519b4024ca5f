"""Direct write markers: ``.hoodie/.temp/<instant>/<partition>/<file>.marker.<IOType>``.

A task creates the marker *before* its data file, so after any failure the markers name every file
the write may have produced, including files of tasks that succeeded but whose results never
reached the driver (Spark's ``abort()`` does not say). Rollback deletes exactly those files.
"""

from __future__ import annotations

import contextlib
import enum

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.contracts.storage_paths import join_key
from hudi_framework.errors import PreconditionFailedError

MARKER_ROOT = ".hoodie/.temp"
MARKER_EXT = ".marker"
#: Directories under :data:`MARKER_ROOT` named so hold rows a Spark job staged before its commit.
STAGING_DIR_PREFIX = "staging-"


class IOType(enum.StrEnum):
    """How the data file came to be (Java's ``IOType``)."""

    CREATE = "CREATE"
    MERGE = "MERGE"
    APPEND = "APPEND"


def marker_dir(instant: str) -> str:
    """The marker directory of one write."""
    return join_key(MARKER_ROOT, instant)


def marker_key(instant: str, partition: str, file_name: str, io_type: IOType) -> str:
    """The marker key of one data file."""
    return join_key(marker_dir(instant), partition, f"{file_name}{MARKER_EXT}.{io_type.value}")


def create_marker(storage: StorageBackend, instant: str, partition: str, file_name: str, io_type: IOType) -> None:
    """Create the marker of a data file about to be written (idempotent for task retries)."""
    with contextlib.suppress(PreconditionFailedError):
        storage.put_if_absent(marker_key(instant, partition, file_name, io_type), b"")


def marked_data_files(storage: StorageBackend, instant: str) -> list[str]:
    """Keys (relative to the base path) of every data file the markers of ``instant`` name."""
    root = marker_dir(instant)
    out = []
    for info in storage.list(root, recursive=True):
        rel = info.key[len(root) + 1 :]
        stem, sep, _io = rel.rpartition(MARKER_EXT + ".")
        if sep:
            out.append(stem)
    return sorted(out)


def delete_markers(storage: StorageBackend, instant: str) -> None:
    """Remove the marker directory of ``instant`` with everything in it (after a commit or a
    rollback), as Apache Hudi deletes a finished instant's marker directory."""
    storage.delete_tree(marker_dir(instant))
