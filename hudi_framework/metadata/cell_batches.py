"""The records of a metadata-table read's HFiles, decoded a batch at a time.

A slice of an MDT partition is a base HFile and, per delta commit, a log block that is an HFile of
its own: a read of a few keys or of one column's statistics finds a few cells in each of many
small HFiles. Their cells are gathered first (:meth:`HFileRecordDecoder.cells`, per file, so a
damaged file is named) and then decoded together, one column-wise pass per writer schema instead
of one per file; each record keeps the sequence number of the block it came from (slice order:
base file, then blocks), which the MDT's merges order records by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import HudiError, MetadataTableUnusableError
from hudi_framework.log.hfile_records import HFileRecordDecoder

__all__ = ["SEQ_COLUMN", "HFileCells", "decode_cells", "tag_records"]

#: The column holding each record's block sequence number.
SEQ_COLUMN: Final = "_seq"


@dataclass(frozen=True, slots=True)
class HFileCells:
    """The cells of one HFile (base file or block) to decode, with its block sequence number."""

    decoder: HFileRecordDecoder
    cells: list[tuple[bytes, bytes]]
    seq: int
    where: str


def decode_cells(parts: Sequence[HFileCells], columns: Sequence[str]) -> list[pa.Table]:
    """The records of ``parts`` (``columns`` and :data:`SEQ_COLUMN`), in part order.

    Raises:
        MetadataTableUnusableError: A value does not decode (naming its file), or the records lack
            one of ``columns``.
    """
    groups: dict[int, list[HFileCells]] = {}
    for part in parts:
        groups.setdefault(id(part.decoder), []).append(part)
    out: list[pa.Table] = []
    for group in groups.values():
        try:
            table = group[0].decoder.decode_cells([cell for part in group for cell in part.cells])
        except HudiError as error:
            for part in group:  # find the file whose value does not decode
                try:
                    part.decoder.decode_cells(part.cells)
                except HudiError as e:
                    raise MetadataTableUnusableError(f"{part.where!r} does not decode: {e}") from e
            raise MetadataTableUnusableError(f"{group[0].where!r} and the rest do not decode: {error}") from error
        seqs = np.repeat(np.array([p.seq for p in group], dtype=np.int64), [len(p.cells) for p in group])
        out.append(_tag(table, columns, seqs))
    if len(out) > 1:  # several writer schemas: back to part order
        rows = pa.concat_tables(out, promote_options="permissive")
        return [rows.take(pc.sort_indices(rows.column(SEQ_COLUMN)))]
    return out


def _tag(table: pa.Table, columns: Sequence[str], seqs: np.ndarray[Any, np.dtype[np.int64]]) -> pa.Table:
    present = [c for c in columns if c in table.column_names]
    missing = [c for c in columns if c not in table.column_names]
    if missing:
        raise MetadataTableUnusableError(f"records lack the column(s) {', '.join(missing)}")
    return table.select(present).append_column(SEQ_COLUMN, pa.array(seqs, pa.int64()))


def tag_records(table: pa.Table, columns: Sequence[str], seq: int) -> pa.Table:
    """``table``'s ``columns`` with :data:`SEQ_COLUMN` set to ``seq`` (records of one HFile).

    Raises:
        MetadataTableUnusableError: The records lack one of ``columns``.
    """
    return _tag(table, columns, np.full(table.num_rows, seq, dtype=np.int64))
