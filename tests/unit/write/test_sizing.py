"""Record size estimation (Java ``UpsertPartitioner.averageBytesPerRecord``) and footer bloom sizing."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.indexing.footer import read_key_footer
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_framework.write.sizing import average_record_size


def _client(path: Path, options: dict[str, str]) -> WriteClient:
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"])
    return WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(options, env=False))


def _batch(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": [f"k{i:05d}" for i in range(start, start + n)], "ts": pa.array([1] * n, pa.int64())})


def test_small_commits_do_not_set_the_record_size(tmp_path: Path) -> None:
    client = _client(tmp_path, {"hoodie.parquet.small.file.limit": "1000000"})
    client.insert(_batch(3))
    timeline = client.table.reload().timeline
    # 3 rows in a file of several KB: below the threshold, so the estimate stands.
    assert average_record_size(timeline, estimate=1024, threshold_bytes=1_000_000) == 1024
    stats = timeline.read_commit_metadata(timeline.commits_timeline()[-1]).write_stats()
    size = sum(s.total_write_bytes or 0 for s in stats)
    assert average_record_size(timeline, estimate=1024, threshold_bytes=size - 1) == -(-size // 3)


def test_the_newest_large_enough_commit_gives_the_record_size(tmp_path: Path) -> None:
    client = _client(tmp_path, {"hoodie.parquet.small.file.limit": "0"})  # every insert opens a file group
    big = client.bulk_insert(_batch(2000))
    small = client.insert(_batch(1, start=5000))
    big_size = sum(s.total_write_bytes or 0 for s in big.stats)
    small_size = sum(s.total_write_bytes or 0 for s in small.stats)
    assert small_size < big_size
    timeline = client.table.reload().timeline
    # The newest commit is too small to tell: the one before it gives the size, rounded up.
    assert average_record_size(timeline, estimate=7, threshold_bytes=small_size) == -(-big_size // 2000)
    assert average_record_size(timeline, estimate=7, threshold_bytes=0) == small_size
    assert average_record_size(timeline, estimate=7, threshold_bytes=big_size) == 7


def test_bloom_options_size_the_footer_filter(tmp_path: Path) -> None:
    small = _client(tmp_path / "small", {"hoodie.index.bloom.num_entries": "100"}).insert(_batch(10))
    default = _client(tmp_path / "default", {}).insert(_batch(10))
    (small_stat,), (default_stat,) = small.stats, default.stats
    assert (small_stat.total_write_bytes or 0) * 10 < (default_stat.total_write_bytes or 0)
    footer = read_key_footer(pq.ParquetFile(tmp_path / "small" / small_stat.path).metadata, with_bloom=True)
    assert footer.min_key == "k00000"
