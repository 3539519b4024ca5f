"""Inserts into log files of small file groups (merge-on-read, ``RECORD_INDEX``) against Apache Hudi 1.2.

Apache Hudi writes a merge-on-read table with its record index; we upsert new keys and updates with
``RECORD_INDEX`` and ``record_index`` kept, so the new keys go to the log file of an existing small
file group (checked on disk). Apache Hudi reads what we read; its upsert of those keys finds them in
the ``record_index`` we wrote (no key stored twice); its compaction folds them into base files, and
both readers still agree.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.write.client import WriteClient
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options, trip_rows
from tests.oracle.test_record_index import RLI_OPTIONS, _assert_index_holds, _assert_keys_once

pytestmark = pytest.mark.oracle


def _files(path: Path, partition: str) -> tuple[list[BaseFileName], list[LogFileName]]:
    names = [p.name for p in (path / partition).iterdir() if p.is_file()]
    bases = [b for n in names if (b := BaseFileName.try_parse(n)) is not None]
    logs = [log for n in names if (log := LogFileName.try_parse(n)) is not None]
    return bases, logs


def test_apache_hudi_reads_and_upserts_keys_we_inserted_into_log_files(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    path = tmp_path / "log_inserts"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(path.name, "MERGE_ON_READ", 9), **RLI_OPTIONS}
    apache_hudi.write(path, trip_rows(range(30), ts=1), options, "insert")
    before = {p: _files(path, p)[0] for p in ("sf", "ny", "la")}

    settings = HudiSettings.from_hoodie_options(RLI_OPTIONS, env=False)
    # k030..k044 are new (five per city), k000..k005 updates.
    result = WriteClient(HudiTable.open(str(path)), settings).upsert(
        pa.concat_tables([trip_rows(range(30, 45), ts=2), trip_rows(range(6), ts=2)])
    )
    assert result.num_inserts == 15
    instant = result.instant.requested_time
    for partition, bases in before.items():
        now, logs = _files(path, partition)
        assert sorted(b.name for b in now) == sorted(b.name for b in bases), "no new base file version"
        ours_logs = [log for log in logs if log.instant_time == instant]
        assert len(ours_logs) == 1
        assert ours_logs[0].file_id in {b.file_id for b in bases}

    ours = read_table(HudiTable.open(str(path)))
    theirs = apache_hudi.read(path)
    _assert_keys_once(ours)
    _assert_index_holds(path, theirs)
    compare_reads(oracle_tally, "MOR RLI table, new keys in log files by us", ours, theirs, key=KEY,
                  data_columns=DATA_COLUMNS)  # fmt: skip

    # Apache Hudi upserts some of those keys with its RECORD_INDEX: it finds them in our record_index.
    apache_hudi.write(path, trip_rows(range(36, 42), ts=3), options, "upsert")
    theirs = apache_hudi.read(path)
    _assert_keys_once(theirs)
    assert theirs.num_rows == 45
    compare_reads(oracle_tally, "MOR log-insert table, then upserted by Apache Hudi",
                  read_table(HudiTable.open(str(path))), theirs, key=KEY, data_columns=DATA_COLUMNS)  # fmt: skip

    compacted = apache_hudi.sql(
        f"CALL run_compaction(op => 'scheduleAndExecute', path => '{path}', "
        "options => 'hoodie.compact.inline.max.delta.commits=1')"
    )
    assert [row["state"] for row in compacted] == ["COMPLETED"]
    theirs = apache_hudi.read(path)
    _assert_keys_once(theirs)
    compare_reads(oracle_tally, "MOR log-insert table, compacted by Apache Hudi",
                  read_table(HudiTable.open(str(path))), theirs, key=KEY, data_columns=DATA_COLUMNS)  # fmt: skip
