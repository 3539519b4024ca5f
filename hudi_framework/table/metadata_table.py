"""Leaving the metadata table (MDT) behind before a writer with ``hoodie.metadata.enable=false`` writes.

A reader that trusts a listed MDT (hudi-rs on v8+ tables whose ``hoodie.table.metadata.partitions``
lists ``files``; Java with ``hoodie.metadata.enable``) would miss every file such a writer adds, so it
first disables it the way Apache Hudi does (format section 7): clear the MDT partitions from
``hoodie.properties`` (backup protocol), then delete ``.hoodie/metadata``. A later writer with the
MDT enabled (:mod:`hudi_framework.metadata_writer.writer`, or Apache Hudi's) rebuilds it from a listing.
"""

from __future__ import annotations

from typing import Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.table.properties import load_properties, update_properties

__all__ = ["METADATA_PARTITION_KEYS", "METADATA_TABLE_DIR", "disable_metadata_table"]

METADATA_TABLE_DIR: Final = ".hoodie/metadata"
METADATA_PARTITION_KEYS: Final = ("hoodie.table.metadata.partitions", "hoodie.table.metadata.partitions.inflight")


def disable_metadata_table(storage: StorageBackend) -> bool:
    """Make the table's metadata table absent; True when there was one to remove.

    Properties first: once no MDT partition is listed, every reader lists the file system, so a
    reader between the two steps still sees the right files.
    """
    props = load_properties(storage, repair=True)
    listed = [k for k in METADATA_PARTITION_KEYS if k in props]
    if listed:
        update_properties(storage, dict.fromkeys(listed))
    leftovers = storage.list(METADATA_TABLE_DIR, recursive=True)
    if leftovers:
        storage.delete_tree(METADATA_TABLE_DIR)  # its directories too, as Apache Hudi deletes it
    return bool(listed or leftovers)
