"""Data skipping in reads, on local disk and on S3: filtered reads return exactly the filtered rows,
files the statistics rule out are never opened (no GET on S3), row groups the footer rules out are
not read, and the plan says what it skipped."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock
from urllib.parse import unquote, urlsplit

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.read.filters import normalize_filters, to_expression
from hudi_framework.read.reader import build_options, collect_plan, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

#: Each insert makes new file groups (no small-file packing), one per city.
SEPARATE_FILES = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"}, env=False)
BATCHES = 8
ROWS = 40
FOOTERS = {"data.skipping.source": "parquet_footers"}


def _batch(k: int) -> pa.Table:
    """Batch ``k``: ``ts`` in ``[1000 k, 1000 k + ROWS)``, so a ``ts`` range picks the batch's files."""
    ids = [f"k{k:02d}-{i:03d}" for i in range(ROWS)]
    return pa.table(
        {
            "id": ids,
            "city": ["sf" if i % 2 else "ny" for i in range(ROWS)],
            "ts": pa.array([1000 * k + i for i in range(ROWS)], pa.int64()),
            "fare": [float(i) if i % 5 else None for i in range(ROWS)],
        }
    )


def _table(place: Place, table_type: str = "COPY_ON_WRITE") -> HudiTable:
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options), SEPARATE_FILES)
    for k in range(BATCHES):
        client.insert(_batch(k))
    return place.open()


@pytest.fixture(scope="module")
def _written() -> dict[str | None, Place]:
    """The copy-on-write table of each storage place, written once per module (by its first test)."""
    return {}


@pytest.fixture
def cow(place: Place, _written: dict[str | None, Place]) -> HudiTable:
    """The module's copy-on-write table on ``place``'s storage (local disk or the module's moto
    server), written by the first test asking: the tests taking it only read it."""
    if place.endpoint not in _written:
        _table(place)
        _written[place.endpoint] = place
    return _written[place.endpoint].open()


def _expected(table: HudiTable, filters: Any) -> list[dict[str, Any]]:
    everything = read_table(table)
    expression = to_expression(normalize_filters(filters), everything.schema)
    return _sorted(everything.filter(expression))


def _sorted(table: pa.Table) -> list[dict[str, Any]]:
    return sorted(table.to_pylist(), key=lambda r: r["_hoodie_record_key"])


@contextmanager
def _opened(table: HudiTable) -> Iterator[list[str]]:
    """Keys the table's storage opens for reading while the context is active."""
    keys: list[str] = []
    original = table.storage.open_input

    def recording(key: str) -> Any:
        keys.append(key)
        return original(key)

    with mock.patch.object(table.storage, "open_input", recording):
        yield keys


@contextmanager
def _s3_gets() -> Iterator[list[str]]:
    """Object keys of every GET (and HEAD) the moto server answers while the context is active."""
    from moto.s3.responses import S3Response

    seen: list[str] = []
    lock = threading.Lock()
    original = S3Response.key_response

    @functools.wraps(original)
    def recording(self: S3Response, request: Any, full_url: str, headers: Any) -> Any:
        if str(request.method) in ("GET", "HEAD"):
            with lock:
                seen.append(unquote(urlsplit(full_url).path))
        return original(self, request, full_url, headers)

    with mock.patch.object(S3Response, "key_response", recording):
        yield seen


def _data_files(table: HudiTable) -> dict[str, int]:
    """Every base file of the latest snapshot -> the batch its rows came from."""
    rows = read_table(table, columns=["_hoodie_file_name", "city", "ts"])
    out = {}
    for row in rows.to_pylist():
        out[f"{row['city']}/{row['_hoodie_file_name']}"] = row["ts"] // 1000
    return out


def test_footer_statistics_skip_files_that_cannot_match(place: Place, cow: HudiTable) -> None:
    table = cow
    files = _data_files(table)
    assert len(files) == 2 * BATCHES
    filters = [("ts", ">=", 3005), ("ts", "<", 3010)]
    with _opened(table) as planning:
        plan = plan_read(table, build_options(filters=filters, options=FOOTERS))
    assert (plan.skipping.files_considered, plan.skipping.files_skipped) == (2 * BATCHES, 2 * BATCHES - 2)
    assert plan.skipping.stats_source == "parquet_footers"
    kept = sorted(k for k, b in files.items() if b == 3)
    assert sorted(t.file_key for t in plan.tasks) == kept
    # Planning reads each candidate's footer once.
    assert sorted(k for k in planning if k in files) == sorted(files)

    with _opened(table) as opened, _s3_gets() as gets:
        result = pa.Table.from_batches(collect_plan(plan, table.storage), schema=plan.schema)
    assert _sorted(result) == _expected(table, filters)
    assert result.num_rows == 5
    assert sorted(k for k in opened if k in files) == kept
    if place.endpoint:
        requested = {p.split("/t/", 1)[1] for p in gets if "/t/" in p}
        assert requested & set(files) == set(kept), "no GET for a skipped file"


class _KnownStats:
    """Column statistics kept beside the table (as the metadata table keeps them): no data file read."""

    name = "test"

    def __init__(self, stats: pa.Table) -> None:
        self.stats = stats

    def column_stats(self, files: Any, columns: Any) -> pa.Table:
        return self.stats


def test_statistics_from_elsewhere_open_no_skipped_file(place: Place, cow: HudiTable) -> None:
    table = cow
    files = _data_files(table)
    rows = read_table(table, columns=["city", "_hoodie_file_name", "ts"])
    grouped = rows.group_by(["city", "_hoodie_file_name"]).aggregate([("ts", "min"), ("ts", "max"), ("ts", "count")])
    n = grouped.num_rows
    stats = pa.table(
        {
            "partition": grouped.column("city"),
            "fileName": grouped.column("_hoodie_file_name"),
            "columnName": pa.array(["ts"] * n),
            "minValue": grouped.column("ts_min"),
            "maxValue": grouped.column("ts_max"),
            "nullCount": pa.array([0] * n, pa.int64()),
            "valueCount": grouped.column("ts_count"),
            "isDeleted": pa.array([False] * n),
        }
    )
    filters = [("ts", "in", [6001, 6003])]
    with _opened(table) as opened, _s3_gets() as gets:
        plan = plan_read(table, build_options(filters=filters), stats_source=_KnownStats(stats))
        result = pa.Table.from_batches(collect_plan(plan, table.storage), schema=plan.schema)
    # Both files of batch 6 span 6001 and 6003 (ny holds even ts, sf odd): both kept, the rest skipped.
    assert plan.skipping.files_skipped == 2 * BATCHES - 2
    assert plan.skipping.stats_source == "test"
    assert _sorted(result) == _expected(table, filters)
    assert result.num_rows == 2
    kept = sorted(k for k, b in files.items() if b == 6)
    assert sorted(k for k in opened if k in files) == kept
    if place.endpoint:
        requested = {p.split("/t/", 1)[1] for p in gets if "/t/" in p}
        assert requested & set(files) == set(kept), "no GET for a skipped file"


def test_default_source_reads_no_footers_at_planning(cow: HudiTable) -> None:
    """Apache Hudi skips files with the metadata table's column statistics only (the default source):
    planning opens no data file; the writer kept the statistics (the MDT is on by default), so
    the files that cannot match are skipped from them."""
    table = cow
    files = _data_files(table)
    filters = [("ts", "=", 2001)]
    with _opened(table) as opened:
        plan = plan_read(table, build_options(filters=filters))
    assert not [k for k in opened if k in files]
    assert plan.skipping.stats_source == "metadata_table"
    assert plan.skipping.files_considered == 2 * BATCHES
    assert 0 < plan.skipping.files_skipped == 2 * BATCHES - len(plan.tasks)
    assert _sorted(read_table(table, filters=filters)) == _expected(table, filters)


def test_data_skipping_off_skips_no_file(cow: HudiTable) -> None:
    table = cow
    options = {**FOOTERS, "hoodie.enable.data.skipping": "false"}
    filters = [("ts", "=", 2001)]
    plan = plan_read(table, build_options(filters=filters, options=options))
    assert plan.skipping.files_skipped == 0
    assert len(plan.tasks) == 2 * BATCHES
    assert _sorted(read_table(table, filters=filters, options=options)) == _expected(table, filters)


def test_partition_pruning_is_counted(cow: HudiTable) -> None:
    table = cow
    filters = [("city", "=", "sf"), ("fare", "is null")]
    plan = plan_read(table, build_options(filters=filters, options=FOOTERS))
    assert (plan.skipping.partitions_considered, plan.skipping.partitions_pruned) == (2, 1)
    assert plan.skipping.files_considered == BATCHES
    assert _sorted(read_table(table, filters=filters, options=FOOTERS)) == _expected(table, filters)


@pytest.mark.parametrize(
    "filters",
    [
        [("fare", "is null")],
        [("fare", ">", 38.5)],
        [[("ts", "<", 5)], [("ts", ">", 7035)]],
        [("id", "starts with", "k04-01")],
        [("id", "in", ["k01-001", "k06-039", "nope"])],
        [("ts", "not in", [1, 2, 3])],
        [("ts", "!=", 5000)],
    ],
)
# The filter matrix on local disk only: storage plays no part in which rows pass (the S3 cases
# above cover what storage does see: files opened, GETs).
@pytest.mark.parametrize("place", ["local"], indirect=True)
def test_filtered_reads_equal_filtering_everything(cow: HudiTable, filters: Any) -> None:
    table = cow
    assert _sorted(read_table(table, filters=filters, options=FOOTERS)) == _expected(table, filters)


@pytest.mark.s3_full  # a planning rule: the S3 side (files opened, GETs) is the tests above
def test_merge_on_read_slices_with_logs_are_never_skipped(place: Place) -> None:
    """A log update can move a record into the filter's range: its slice must be read and merged."""
    table = _table(place, "MERGE_ON_READ")
    client = WriteClient(table, SEPARATE_FILES)
    moved = _batch(0).slice(0, 1).set_column(2, "ts", pa.array([9999], pa.int64()))
    client.upsert(moved)
    table = place.open()
    filters = [("ts", "=", 9999)]
    plan = plan_read(table, build_options(filters=filters, options=FOOTERS))
    assert plan.skipping.files_skipped == 2 * BATCHES - 1
    result = read_table(table, filters=filters, options=FOOTERS)
    assert result.column("_hoodie_record_key").to_pylist() == ["k00-000"]
    assert _sorted(result) == _expected(table, filters)
    read_optimized = read_table(table, query_type="read_optimized", filters=filters, options=FOOTERS)
    assert read_optimized.num_rows == 0


def test_files_whose_row_groups_cannot_match_read_no_data(cow: HudiTable, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    table = cow
    filters = [("ts", "=", 4003)]
    expected = _expected(table, filters)
    read_groups: list[Any] = []
    original: Callable[..., Any] = pq.ParquetFile.iter_batches

    def recording(self: pq.ParquetFile, *args: Any, **kwargs: Any) -> Any:
        read_groups.append(kwargs.get("row_groups"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", recording)
    assert _sorted(read_table(table, filters=filters)) == expected
    # Without file statistics all 16 files are opened, but only the two of batch 4 have a row group
    # whose range holds 4003; the others decode nothing.
    assert read_groups == [None, None]


def test_unknown_skipping_source_is_refused() -> None:
    with pytest.raises(InvalidConfigValueError, match=r"data\.skipping\.source"):
        build_options(options={"data.skipping.source": "bloom"})
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.enable\.data\.skipping"):
        build_options(options={"hoodie.enable.data.skipping": "maybe"})
