"""Turning an incoming batch into write rows: conform, compute keys, flag deletes, pre-combine.

Engine-neutral and per batch: the local engine calls these on the whole input, the Spark engine on
each Arrow batch inside ``mapInArrow`` (keys) and on each key-partitioned group (pre-combine).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.merger import MergeContext
from hudi_framework.contracts.merging.flags import set_bool_column
from hudi_framework.contracts.merging.precombine import has_duplicate_keys
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.batch import IS_DELETED, conform_batch, require_key_fields

if TYPE_CHECKING:
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.merger import RecordMerger

__all__ = ["IS_DELETED", "PARTITION_PATH", "RECORD_KEY", "combine_rows", "prepare_rows", "prepared_schema"]

RECORD_KEY, PARTITION_PATH = META_FIELDS[2], META_FIELDS[3]
#: Pre-combine key of a non-global index (record key and partition path); never written.
_COMBINE_KEY = "_hudi_fw_combine_key"


def prepared_schema(schema: pa.Schema) -> pa.Schema:
    """The columns :func:`prepare_rows` returns for a table with data schema ``schema``.

    The data columns, the record key, the partition path, and the delete flag last (unless the
    table schema itself has ``_hoodie_is_deleted``, which then keeps its place).
    """
    out = pa.schema([*schema, pa.field(RECORD_KEY, pa.string()), pa.field(PARTITION_PATH, pa.string())])
    if IS_DELETED not in schema.names:
        out = out.append(pa.field(IS_DELETED, pa.bool_()))
    return out


def prepare_rows(operation: WriteOperation, data: pa.Table, schema: pa.Schema, keygen: KeyGenerator) -> pa.Table:
    """Conform ``data`` to the table schema and add keys and the delete flag.

    Args:
        operation: The write operation; ``delete`` accepts key columns only and flags every row, as
            ``delete_partition`` does (its rows only name partitions).
        data: Incoming rows (meta columns, if any, are ignored).
        schema: The table's data schema.
        keygen: The table's key generator.

    Returns:
        Rows of :func:`prepared_schema` (``_hoodie_is_deleted`` false unless the data or the
        operation says otherwise).

    Raises:
        KeyFieldError: A record key or partition field is missing (or of a type keys are not made from).
        SchemaMismatchError: A column is unknown, missing or not castable.
        InvalidRecordKeyError: A record key is null or empty.
        InvalidPartitionValueError: A partition value cannot make a partition path.
    """
    # Before conforming, which would fill an absent key column with nulls.
    require_key_fields(data.schema, (*keygen.record_key_fields, *keygen.partition_fields))
    is_delete = operation in (WriteOperation.DELETE, WriteOperation.DELETE_PARTITION)
    conformed = conform_batch(data, schema, allow_missing=is_delete)
    flags = np.zeros(conformed.num_rows, dtype=np.bool_)
    if is_delete:
        flags[:] = True
    elif IS_DELETED in conformed.column_names:
        flags |= conformed.column(IS_DELETED).fill_null(False).to_numpy(zero_copy_only=False).astype(np.bool_)
    if IS_DELETED not in schema.names and IS_DELETED in conformed.column_names:
        conformed = conformed.drop_columns([IS_DELETED])
    rows = conformed.append_column(pa.field(RECORD_KEY, pa.string()), keygen.record_keys(conformed))
    rows = rows.append_column(pa.field(PARTITION_PATH, pa.string()), keygen.partition_paths(conformed))
    return set_bool_column(rows, IS_DELETED, flags)


def combine_rows(
    merger: RecordMerger, rows: pa.Table, ordering_fields: Sequence[str], *, by_partition: bool = False
) -> pa.Table:
    """Pre-combine: one row per record key, by the table's merger (rows in arrival order).

    Args:
        merger: The table's merger.
        rows: Prepared rows.
        ordering_fields: The table's ordering fields.
        by_partition: One row per record key *and partition path*, as Java's ``deduplicateRecords``
            does for a non-global index (a key in two partitions is two records there).
    """
    ctx = MergeContext(ordering_fields=tuple(ordering_fields))
    if not by_partition or not has_duplicate_keys(rows, ctx):
        # Keys unique on their own are unique per partition too: no composite key to build.
        return merger.combine(rows, ctx)
    partitions = rows.column(PARTITION_PATH)
    # "<partition length>:<partition>:<key>" is injective whatever characters either holds.
    lengths = pc.cast(pc.utf8_length(partitions), pa.string())
    composite = pc.binary_join_element_wise(lengths, partitions, rows.column(RECORD_KEY), ":")
    keyed = rows.append_column(_COMBINE_KEY, composite)
    combined = merger.combine(keyed, MergeContext(ordering_fields=ctx.ordering_fields, record_key_field=_COMBINE_KEY))
    return combined.drop_columns([_COMBINE_KEY])
