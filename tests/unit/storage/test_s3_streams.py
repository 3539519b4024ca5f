"""S3 streams: ranged reads fetch only what pyarrow asks for; multipart uploads are atomic."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from botocore.exceptions import ClientError

from hudi_framework.errors import StorageError
from hudi_storage_s3 import S3StorageBackend, S3StorageOptions
from hudi_storage_s3.streams import RangedReader
from tests.unit.storage.conftest import MOTO_OPTIONS
from tests.unit.storage.test_s3_retry import LANDED, FlakyClient, client_error

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

pytestmark = [pytest.mark.s3, pytest.mark.usefixtures("aws_env")]

MIB = 1024 * 1024


class CountingFetch:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ranges: list[tuple[int, int]] = []

    def __call__(self, start: int, end: int) -> bytes:
        self.ranges.append((start, end))
        return self.data[start:end]


def test_ranged_reader_buffers_small_sequential_reads() -> None:
    fetch = CountingFetch(bytes(range(256)) * 100)
    reader = RangedReader(fetch, len(fetch.data), block_size=1024)
    chunks = [reader.read(16) for _ in range(64)]
    assert b"".join(chunks) == fetch.data[:1024]
    assert fetch.ranges == [(0, 1024)]
    assert reader.read(4096) == fetch.data[1024:5120]  # large reads go straight through
    assert fetch.ranges[-1] == (1024, 5120)
    reader.seek(-4, io.SEEK_END)
    assert reader.read() == fetch.data[-4:]
    assert reader.read(10) == b""


def test_ranged_reader_seek_rules() -> None:
    reader = RangedReader(CountingFetch(b"abc"), 3, block_size=4096)
    assert reader.seekable()
    assert reader.readable()
    assert reader.seek(1) == 1
    assert reader.seek(1, io.SEEK_CUR) == 2
    assert reader.read() == b"c"
    with pytest.raises(OSError, match="negative"):
        reader.seek(-1)
    buf = bytearray(5)
    reader.seek(0)
    assert reader.readinto(buf) == 3
    assert bytes(buf[:3]) == b"abc"


def _parquet_bytes(rows: int) -> bytes:
    table = pa.table({"id": pa.array(range(rows), pa.int64()), "pad": pa.array([f"{i:08d}" * 8 for i in range(rows)])})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=rows // 4, compression="none")
    return sink.getvalue().to_pybytes()


def test_parquet_footer_read_does_not_download_the_file(moto_client: S3Client, bucket: str) -> None:
    data = _parquet_bytes(40_000)
    assert len(data) > 2 * MIB
    flaky = FlakyClient(moto_client, {})
    options = S3StorageOptions(**{**MOTO_OPTIONS.model_dump(), "whole_object_read_max": 64 * 1024})
    backend = S3StorageBackend(f"s3://{bucket}/t", options, client=flaky)  # type: ignore[arg-type]
    backend.write("f.parquet", data)
    with backend.open_input("f.parquet") as f:
        meta = pq.ParquetFile(f).metadata
    assert meta.num_rows == 40_000
    # One aborted GET for the size and ETag, then a few ranged GETs near the end for the footer.
    assert flaky.calls["get_object"] <= 4


def test_object_replaced_during_ranged_read_is_detected(moto_client: S3Client, bucket: str) -> None:
    options = S3StorageOptions(**{**MOTO_OPTIONS.model_dump(), "whole_object_read_max": 0, "range_block_size": 4096})
    backend = S3StorageBackend(f"s3://{bucket}/t", options, client=moto_client)
    backend.write("obj", b"a" * 100_000)
    with backend.open_input("obj") as f:
        assert f.read(10) == b"a" * 10
        backend.write("obj", b"b" * 100_000)
        f.seek(50_000)
        with pytest.raises(StorageError, match="replaced while being read"):
            f.read(10)


def test_large_output_uses_multipart_upload(moto_client: S3Client, bucket: str) -> None:
    flaky = FlakyClient(moto_client, {"upload_part": [client_error("SlowDown", 503, "UploadPart")]})
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky)  # type: ignore[arg-type]
    payload = bytes(range(256)) * (11 * MIB // 256 + 7)
    with backend.open_output("big.bin") as out:
        for i in range(0, len(payload), MIB):
            out.write(payload[i : i + MIB])
        assert backend.exists("big.bin") is False
    assert backend.read("big.bin") == payload
    assert flaky.calls["create_multipart_upload"] == 1
    assert flaky.calls["upload_part"] == 4  # 3 parts, one retried after SlowDown
    assert flaky.calls["complete_multipart_upload"] == 1
    assert flaky.calls["put_object"] == 0


def test_failed_multipart_upload_is_aborted(moto_client: S3Client, bucket: str) -> None:
    denied = client_error("AccessDenied", 403, "UploadPart")
    flaky = FlakyClient(moto_client, {"upload_part": [denied]})
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky)  # type: ignore[arg-type]
    out = backend.open_output("big.bin")
    out.write(b"x" * (6 * MIB))
    with pytest.raises(StorageError, match="AccessDenied"):
        out.close()
    assert flaky.calls["abort_multipart_upload"] == 1
    assert backend.exists("big.bin") is False
    assert moto_client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_small_output_is_one_put(moto_client: S3Client, bucket: str) -> None:
    flaky = FlakyClient(moto_client, {})
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky)  # type: ignore[arg-type]
    with backend.open_output("small.bin") as out:
        out.write(b"hello")
    assert backend.read("small.bin") == b"hello"
    assert flaky.calls["put_object"] == 1
    assert flaky.calls["create_multipart_upload"] == 0


def test_listing_skips_objects_no_key_can_name(moto_client: S3Client, bucket: str) -> None:
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=moto_client)
    backend.write("d/ok", b"1")
    for odd in ("t/d/", "t/d//x", "t/d/../y"):  # a console "folder" marker and foreign keys
        moto_client.put_object(Bucket=bucket, Key=odd, Body=b"")
    assert [f.key for f in backend.list("d")] == ["d/ok"]
    assert sorted(f.key for f in backend.list("", recursive=True)) == ["d/ok"]
    assert backend.list_dirs("d") == []


def test_listing_paginates(moto_client: S3Client, bucket: str) -> None:
    pages: list[int] = []

    class SmallPages(FlakyClient):
        def list_objects_v2(self, **kwargs: Any) -> Any:
            page = moto_client.list_objects_v2(**kwargs, MaxKeys=2)
            pages.append(page["KeyCount"])
            return page

    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=SmallPages(moto_client, {}))  # type: ignore[arg-type]
    for i in range(5):
        backend.write(f"many/{i:05d}", b"")
    for i in range(3):
        backend.write(f"many/sub{i}/x", b"")
    assert len(backend.list("many")) == 5
    assert len(pages) > 2
    assert len(backend.list("many", recursive=True)) == 8
    assert sorted(backend.list_dirs("many")) == ["many/sub0", "many/sub1", "many/sub2"]


def test_client_errors_keep_their_cause(moto_client: S3Client, bucket: str) -> None:
    flaky = FlakyClient(moto_client, {"head_object": [client_error("AccessDenied", 403, "HeadObject")]})
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky)  # type: ignore[arg-type]
    with pytest.raises(StorageError, match="AccessDenied") as info:
        backend.exists("k")
    assert isinstance(info.value.__cause__, ClientError)


def test_multipart_complete_whose_response_was_lost_still_succeeds(moto_client: S3Client, bucket: str) -> None:
    flaky = FlakyClient(moto_client, {"complete_multipart_upload": [LANDED]})
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky)  # type: ignore[arg-type]
    payload = b"z" * (6 * MIB)
    with backend.open_output("big.bin") as out:
        out.write(payload)
    assert backend.read("big.bin") == payload
    assert flaky.calls["complete_multipart_upload"] == 2
    assert flaky.calls["abort_multipart_upload"] == 0


def test_unfinished_multipart_uploads_are_incomplete_writes(bucket: str, moto_client: S3Client) -> None:
    """A writer killed during a multipart upload leaves the upload; it is listed and aborted."""
    backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=moto_client)
    started = moto_client.create_multipart_upload(Bucket=bucket, Key="t/sf/f1.parquet")["UploadId"]
    moto_client.create_multipart_upload(Bucket=bucket, Key="t/sf/deeper/f2.parquet")
    moto_client.create_multipart_upload(Bucket=bucket, Key="other/f3.parquet")  # outside the root
    backend.write("sf/published.parquet", b"x")
    (write,) = backend.list_incomplete("sf")
    assert (write.target, write.target_name, write.handle) == ("sf/f1.parquet", "f1.parquet", started)
    assert sorted(w.target for w in backend.list_incomplete("", recursive=True)) == [
        "sf/deeper/f2.parquet",
        "sf/f1.parquet",
    ]
    backend.discard_incomplete(write)
    backend.discard_incomplete(write)  # already gone
    assert [w.target for w in backend.list_incomplete("", recursive=True)] == ["sf/deeper/f2.parquet"]
    assert backend.read("sf/published.parquet") == b"x"
    assert backend.small_writes_leave_incomplete is False
