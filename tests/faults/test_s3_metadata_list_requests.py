"""On S3 (moto server on 127.0.0.1), counted at the server: planning a snapshot read of a table with
100 partitions sends no LIST request that can return a data file (every prefix is under
``.hoodie/``) when the metadata table (MDT) is used, and some without it (the table's root, listed
recursively); both reads return the same rows."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import new_bucket, rows_of, s3_options

pytestmark = pytest.mark.s3

PARTITIONS = 100


@contextmanager
def list_prefixes(bucket: str) -> Iterator[list[str]]:
    """The ``prefix`` of every LIST request moto serves for ``bucket`` while the context is active."""
    from moto.s3.responses import S3Response

    seen: list[str] = []
    lock = threading.Lock()
    original: Callable[..., Any] = S3Response.bucket_response

    @functools.wraps(original)
    def recording(self: S3Response, request: Any, full_url: str, headers: Any) -> Any:
        url = urlsplit(full_url)
        if str(request.method) == "GET" and url.path.strip("/") == bucket:
            query = parse_qs(url.query, keep_blank_values=True)
            if "list-type" in query or "prefix" in query or not query:
                with lock:
                    seen.append(query.get("prefix", [""])[0])
        return original(self, request, full_url, headers)

    with mock.patch.object(S3Response, "bucket_response", recording):
        yield seen


def test_planning_from_the_mdt_lists_no_data_partition(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/t"
    config = new_table_config(
        "t", version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(uri, config, storage_options=s3_options(endpoint))
    options = {"hoodie.metadata.enable": "true", "hoodie.metadata.index.column.stats.enable": "false"}
    client = WriteClient(table, HudiSettings.from_hoodie_options(options, env=False))
    rows = [{"id": f"k{i}", "city": f"c{i:03d}", "ts": 1} for i in range(PARTITIONS)]
    client.insert(pa.Table.from_pylist(rows))
    client.upsert(pa.Table.from_pylist([{**r, "ts": 2} for r in rows[::10]]))

    with list_prefixes(bucket) as listed:
        from_mdt = rows_of(read_table(HudiTable.open(uri, storage_options=s3_options(endpoint))))
    assert listed
    assert [p for p in listed if not p.startswith("t/.hoodie/")] == [], "no LIST under a data partition"
    assert any(p.startswith("t/.hoodie/metadata/") for p in listed), "the MDT was read"

    with list_prefixes(bucket) as listed:
        table = HudiTable.open(uri, storage_options=s3_options(endpoint))
        from_listing = rows_of(read_table(table, options={"hoodie.metadata.enable": "false"}))
    assert [p for p in listed if not p.startswith("t/.hoodie/")] != [], "the data partitions are listed"
    assert from_mdt == from_listing
    assert len(from_mdt) == PARTITIONS
    assert sum(1 for _, _, ts in from_mdt if ts == 2) == PARTITIONS // 10
