"""Record positions of logged updates and deletes: where each key's row sits in the slice's base file.

Apache Hudi 1.x (``hoodie.write.record.positions``, default true there, false here) gives a log block the headers
RECORD_POSITIONS (the base-file row index of each record, :mod:`hudi_framework.log.record_positions`)
and BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS (the instant of that base file), with the block's
records sorted by position, so that readers can merge by position instead of by key. Java leaves
both headers out when some record has no position (a key the base file does not hold: an insert
into a log, or a key only in earlier logs) or two records share one (``addRecordPositionsIfRequired``);
so does :func:`positioned`.

A key's position is its *first* row in the base file, the row a key-based merge updates
(``KeyBasedFileGroupRecordBuffer``; docs/writing.md, "Duplicate keys"), so both merges agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous, from_numpy, to_numpy
from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.indexing.key_arrays import as_key_array
from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import encode_positions

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["base_file_positions", "positioned"]

_RECORD_KEY = "_hoodie_record_key"


def base_file_positions(storage: StorageBackend, base_file_key: str, keys: pa.Array) -> npt.NDArray[np.int64] | None:
    """The row index of each key's first row in the base file, -1 for keys it does not hold.

    Reads one column. None when the file has no record key column or null keys (a table without
    meta fields): positions cannot be told from stored keys there.
    """
    with open_parquet(storage, base_file_key) as parquet:
        if _RECORD_KEY not in parquet.schema_arrow.names:
            return None
        stored = parquet.read(columns=[_RECORD_KEY], use_threads=False).column(_RECORD_KEY)
    if stored.null_count:
        return None
    found = contiguous(pc.index_in(as_key_array(keys), value_set=as_key_array(stored)))
    return to_numpy(found, null=-1).astype(np.int64)


def positioned(
    rows: pa.Table, positions: npt.NDArray[np.int64] | None, base_instant: str
) -> tuple[pa.Table, dict[HeaderKey, str]]:
    """``rows`` sorted by position with the two position headers, or as they are with none.

    Args:
        rows: A block's records (one per position).
        positions: Each row's position in the base file (-1: none), or None when unknown.
        base_instant: The base file's instant (BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS).
    """
    if positions is None or not rows.num_rows or positions.min() < 0:
        return rows, {}
    order = np.argsort(positions, kind="stable")
    ranked = positions[order]
    if np.any(ranked[1:] == ranked[:-1]):
        return rows, {}  # two records of one stored row: Java writes no positions either
    header = {
        HeaderKey.RECORD_POSITIONS: encode_positions(ranked),
        HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: base_instant,
    }
    return rows.take(from_numpy(order)), header
