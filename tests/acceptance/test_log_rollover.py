"""Log file rollover at ``hoodie.logfile.max.size``: a merge-on-read append larger than the limit is
split over several log files of increasing version (one write stat each), and every reader (ours,
hudi-rs, compaction) reads them all, in order, as the model says."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.reader import read_log_file
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.engines import WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.scenario import Scenario

LIMIT = 4096
OPTIONS = {
    "hoodie.logfile.max.size": str(LIMIT),
    # Updates always go to log files (a small file group taking inserts would be rewritten).
    "hoodie.parquet.small.file.limit": "0",
}


def _log_files(path: Path) -> list[Path]:
    return [p for p in path.rglob(".*.log.*") if ".hoodie" not in p.parts]


@pytest.mark.parametrize("version", [9, 6])
def test_appends_roll_over_and_every_reader_reads_all_versions(
    version: int, engine: WriteEngine, tmp_path: Path
) -> None:
    sc = Scenario(
        engine,
        tmp_path / "t",
        Layout(KeyGen.SIMPLE, True),
        version=version,
        table_type="MERGE_ON_READ",
        options=OPTIONS,
        seed=version,
    )
    sc.write_inserts(400, WriteOperation.BULK_INSERT)
    upsert = sc.write_upsert(updates=300, stale=0, inserts=0, duplicates=5, deletes=40)
    sc.write_delete(30)
    sc.write_upsert(updates=250, stale=0, inserts=0, duplicates=0, deletes=20)

    table = sc.table
    stats = [s for ss in table.timeline.read_commit_metadata(upsert).partition_to_write_stats.values() for s in ss]
    per_group = Counter(s.file_id for s in stats)
    assert max(per_group.values()) >= 2, "one commit's append to a file group rolled over"
    for file_id, count in per_group.items():
        versions = sorted(s.log_version or 0 for s in stats if s.file_id == file_id)
        assert versions == list(range(versions[0], versions[0] + count)), "consecutive log versions"
    for log in _log_files(sc.path):
        name = LogFileName.parse(log.name)
        assert name.version >= 1
        if log.stat().st_size > LIMIT:  # only a single block larger than the limit may exceed it
            assert len(list(read_log_file(table.storage, str(log.relative_to(sc.path))))) == 1
    sc.checker().check_all(incremental_hudi_rs=False)

    assert sc.compact() is not None
    compactions = [i for i in sc.table.timeline.commits_timeline() if i.action is Action.COMMIT]
    assert len(compactions) == 1
    sc.checker().check_latest()


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "lots"])
def test_an_invalid_limit_is_refused_naming_the_option(value: str) -> None:
    with pytest.raises(InvalidConfigValueError) as caught:
        HudiSettings.from_hoodie_options({"hoodie.logfile.max.size": value}, env=False)
    assert caught.value.key == "hoodie.logfile.max.size"
    assert "hoodie.logfile.max.size" in str(caught.value)


def test_the_default_is_apache_hudis_one_gibibyte() -> None:
    assert HudiSettings().write.log_file_max_size_bytes == 1024**3
