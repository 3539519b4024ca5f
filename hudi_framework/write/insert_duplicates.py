"""Inserts of keys the table already holds: ``hoodie.datasource.insert.dup.policy``.

An insert never looks stored keys up, so by default it writes a second record for a key the table
holds. The policy (Java's ``HoodieSparkSqlWriter.handleInsertDuplicates`` with
``DataSourceUtils.handleDuplicates``) tags an ``insert`` batch with the index first: ``drop`` leaves
out the records whose key is found, ``fail`` rejects the write. Duplicates within the batch are not
its concern (``hoodie.combine.before.insert`` is). The deprecated
``hoodie.datasource.write.insert.drop.duplicates=true`` means ``drop``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import LOCATION_FILE_ID, PARTITION_PATH, RECORD_KEY
from hudi_framework.errors import DuplicateKeyError, InvalidConfigValueError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.record_index_locator import locator_for
from hudi_framework.vocabulary import InsertDupPolicy, WriteOperation

if TYPE_CHECKING:
    from hudi_framework.config.sections import WriteSettings
    from hudi_framework.contracts.index import RecordIndex
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.layout.file_group import FileSlice

__all__ = ["SHOWN_KEYS", "duplicate_key_error", "insert_dup_policy", "without_stored_keys"]

#: Keys a :class:`~hudi_framework.errors.DuplicateKeyError` names at most.
SHOWN_KEYS: Final = 10
_ROW: Final = "_hudi_fw_insert_row"


def insert_dup_policy(write: WriteSettings, operation: WriteOperation) -> InsertDupPolicy:
    """What ``operation`` does with incoming keys the table holds (``NONE``: nothing, they are written).

    Only ``insert`` looks them up; ``insert.drop.duplicates=true`` means ``drop`` unless the policy
    is set.

    Raises:
        InvalidConfigValueError: ``bulk_insert`` with ``drop`` or ``fail``. Apache Hudi's (row-writer)
            bulk insert refuses ``insert.drop.duplicates`` and ignores the policy; both are refused
            here rather than ignored.
    """
    policy = write.insert_dup_policy
    if policy is InsertDupPolicy.NONE and write.insert_drop_duplicates:
        policy = InsertDupPolicy.DROP
    if operation is WriteOperation.BULK_INSERT and policy is not InsertDupPolicy.NONE:
        if write.insert_dup_policy is InsertDupPolicy.NONE:
            key, value = "hoodie.datasource.write.insert.drop.duplicates", "true"
        else:
            key, value = "hoodie.datasource.insert.dup.policy", policy.value
        raise InvalidConfigValueError(
            key, f"bulk_insert does not look up stored keys, so it cannot apply {key}={value}; use insert"
        )
    return policy if operation is WriteOperation.INSERT else InsertDupPolicy.NONE


def duplicate_key_error(keys: Sequence[str], count: int) -> DuplicateKeyError:
    """The error of ``fail`` for ``count`` distinct stored keys, naming the first :data:`SHOWN_KEYS` of ``keys``."""
    return DuplicateKeyError(sorted(keys)[:SHOWN_KEYS], count)


def without_stored_keys(
    rows: pa.Table,
    policy: InsertDupPolicy,
    slices: Sequence[FileSlice],
    storage: StorageBackend,
    *,
    index: RecordIndex,
    keygen: KeyGenerator | None = None,
) -> pa.Table:
    """``rows`` (prepared) without the records whose key the table holds, under ``policy``.

    Args:
        rows: Prepared insert rows (``_hoodie_record_key``, ``_hoodie_partition_path``).
        policy: ``DROP`` or ``FAIL`` (``NONE`` returns ``rows``).
        slices: The table's latest file slices.
        storage: Backend rooted at the table base path.
        index: The configured index (a global one finds a key in any partition).
        keygen: For tables without meta fields (their base files store no keys).

    Raises:
        DuplicateKeyError: ``FAIL`` and some key is stored.
    """
    if policy is InsertDupPolicy.NONE or not rows.num_rows:
        return rows
    keys = pa.table(
        {
            RECORD_KEY: rows.column(RECORD_KEY),
            PARTITION_PATH: rows.column(PARTITION_PATH),
            _ROW: pa.array(np.arange(rows.num_rows, dtype=np.int64)),
        }
    )
    tagged = tag_locations(index, keys, slices, storage, keygen=keygen, locator=locator_for(index, storage))
    located = tagged.filter(pc.is_valid(tagged.column(LOCATION_FILE_ID)))
    if not located.num_rows:
        return rows
    if policy is InsertDupPolicy.FAIL:
        stored = pc.unique(located.column(RECORD_KEY).combine_chunks().cast(pa.string()))
        raise duplicate_key_error(stored.to_pylist(), len(stored))
    stored_rows = np.zeros(rows.num_rows, dtype=np.bool_)
    stored_rows[located.column(_ROW).to_numpy()] = True  # a key in several file groups repeats its row
    return rows.filter(pa.array(~stored_rows))
