"""The data table's file listing taken from the metadata table, or None to list storage instead.

Readers plan from the MDT ``files`` partition only when nothing is in doubt: the MDT exists, lists
``files`` as complete, has every file-changing data instant (:func:`check_in_sync`), decodes, and
names every file of the latest slices that the completed instants' commit metadata name (the
caller checks that on the view it builds: :func:`warn_fallback`). Anything else falls back to a
storage listing with a logged warning naming why; a table without an MDT falls back silently.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from hudi_framework.errors import HudiError, MetadataTableUnusableError
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, files_view

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from hudi_framework.contracts.storage import FileInfo, StorageBackend
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["metadata_listing", "warn_fallback"]

_LOG = logging.getLogger(__name__)


def metadata_listing(
    storage: StorageBackend,
    data_properties: Mapping[str, str],
    data_timeline: Timeline,
    partitions: list[str] | None,
    *,
    opened: Callable[[], MetadataTable | None] | None = None,
) -> dict[str, list[FileInfo]] | None:
    """Partition -> files from the MDT, or None when the caller must list storage.

    Args:
        storage: The data table's storage.
        data_properties: The data table's ``hoodie.properties``.
        data_timeline: The data table's active timeline.
        partitions: Only these partitions; None for all.
        opened: Gives the MDT already opened for ``data_timeline`` (instead of opening it here).
    """
    try:
        mdt = opened() if opened is not None else MetadataTable.open(storage, data_properties)
        if mdt is None:
            return None
        check_in_sync(mdt, data_timeline)
        listing = files_view(mdt, partitions)
    except MetadataTableUnusableError as e:
        warn_fallback(storage, e.reason)
        return None
    except HudiError as e:  # a damaged MDT file: never trust a partial listing
        warn_fallback(storage, str(e))
        return None
    return listing


def warn_fallback(storage: StorageBackend, reason: str) -> None:
    """Log why a read lists storage instead of using the metadata table."""
    _LOG.warning("listing storage instead of the metadata table of %s: %s", storage.root_uri, reason)
