"""Column statistics of the log files a write appended: the fact the write path hands to the
``column_stats`` builder (and through it to ``partition_stats``) so that the metadata table need
not read the written log files back.

The write path (:meth:`MetadataTableSync.hand_over
<hudi_framework.metadata_writer.sync.MetadataTableSync.hand_over>` under :data:`COLUMN_STATS_FACT`)
gives a :data:`LogFileStats`: per written log file (its write stat's ``path``), the statistics of
every indexable column over the records of its data block, a table of the shape
:func:`~hudi_framework.metadata_writer.file_column_stats.file_column_stats` gives (sizes 0, as for
log files read back), or None for a log file without records (deletes only). A log file the fact
does not name (another writer's) is read back by the builder. Spark executors return each log
file's statistics with its write stat (Arrow IPC), never its records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pyarrow as pa

__all__ = ["COLUMN_STATS_FACT", "LogFileStats"]

#: The name of the fact (:meth:`~hudi_framework.metadata_writer.sync.MetadataTableSync.hand_over`).
COLUMN_STATS_FACT: Final = "column_stats"

#: Per written log file (the write stat's ``path``), its column statistics.
LogFileStats = Mapping[str, pa.Table | None]
