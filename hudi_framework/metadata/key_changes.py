"""What a write did to the record keys of each data file it wrote: the fact the write path hands
to the ``record_index`` builder so that it need not read the written files back.

The write path (:meth:`MetadataTableSync.hand_over
<hudi_framework.metadata_writer.sync.MetadataTableSync.hand_over>` under :data:`RECORD_INDEX_FACT`)
gives a :class:`KeyChanges`: per written file (its write stat's ``path``), the keys its file group
gained and the keys it lost, exactly what reading the new and previous base files would tell:

* a new or rewritten base file: ``inserted`` = keys in the new file its previous base file lacks,
  ``deleted`` = keys of the previous base file missing from the new one;
* a log file: ``deleted`` = the keys of its DELETE block, ``inserted`` = the keys inserted into
  it (new to its file group: inserts into log files of small file groups, with an index that
  indexes log files; empty otherwise).

A file the fact does not name is read back by the builder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import pyarrow as pa

__all__ = ["RECORD_INDEX_FACT", "FileKeyChanges", "KeyChanges"]

#: The name of the fact (:meth:`~hudi_framework.metadata_writer.sync.MetadataTableSync.hand_over`).
RECORD_INDEX_FACT: Final = "record_index"


@dataclass(frozen=True, slots=True)
class FileKeyChanges:
    """The keys one written data file's file group gained (``inserted``) and lost (``deleted``)."""

    inserted: pa.Array
    deleted: pa.Array


#: Per written file (the write stat's ``path``), its key changes.
KeyChanges = Mapping[str, FileKeyChanges]
