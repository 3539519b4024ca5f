"""On S3 (moto server on 127.0.0.1): writers keep ``bloom_filters`` in step and the MDT cleans itself;
the bloom index with ``hoodie.bloom.index.use.metadata=true`` tags a batch of new keys without a
single GET of a data file, and upserts land exactly as on local disk."""

from __future__ import annotations

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_metadata_bloom_filters import BLOOM_ON, _check_blooms, _rows
from tests.faults.s3_faults import new_bucket, ours, s3_options
from tests.faults.s3_requests import request_log
from tests.oracle.test_bloom_metadata import incoming, opened_data_files

pytestmark = pytest.mark.s3


def test_bloom_filters_and_mdt_cleaning_on_s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/t"
    config = new_table_config(
        "t", version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(uri, config, storage_options=s3_options(endpoint))
    options = {
        **BLOOM_ON,
        "hoodie.metadata.compact.max.delta.commits": "3",
        # Data and MDT cleaning by file versions (the MDT keeps ceil(1.2 x 1) = 2 slices per group).
        "hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS",
        "hoodie.clean.fileversions.retained": "1",
    }
    client = WriteClient(table, HudiSettings.from_hoodie_options(options, env=False))
    client.insert(_rows(range(0, 30), ts=1))
    for n in range(2, 10):
        client.upsert(_rows(range(n, n + 3), ts=n))
    table = HudiTable.open(uri, storage_options=s3_options(endpoint))
    assert _check_blooms(table) > 0
    mdt_timeline = Timeline.load(table.storage, layout_version=2, timeline_path="metadata/.hoodie/timeline")
    assert mdt_timeline.completed({Action.CLEAN}), "the MDT cleaned itself"

    index = client.session.index
    source = metadata_index_source(index, table.storage, table.properties, table.timeline)
    assert source is not None
    slices = table.latest_file_slices()
    with opened_data_files(table) as opened, request_log() as log:
        fresh = tag_locations(index, incoming(range(500, 560)), slices, table.storage, metadata=source)
    assert fresh.column("_hoodie_location_file_id").null_count == 60
    assert opened == []
    assert log.count(bucket) > 0, "the metadata table was read from S3"

    client.upsert(_rows(range(0, 5), ts=99))
    rows = ours(uri, s3_options(endpoint))
    assert len(rows) == 30
    assert [r for r in rows if r[2] == 99] == [(f"k{i:03d}", ("sf", "ny", "la")[i % 3], 99) for i in range(5)]
