"""Unsafe keys and invalid bucket names are rejected before any I/O.

"Before any I/O" is proven, not assumed: the S3 client is wrapped in a botocore ``Stubber`` with no
queued responses (any request would raise ``UnStubbedResponseError``, and its endpoint is a closed
port on 127.0.0.1 anyway), client construction is replaced by a function that fails the test, and the
memory backend counts every access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

import pytest
from botocore.stub import Stubber

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import InvalidBucketNameError, InvalidStorageKeyError
from hudi_framework.testing import UNSAFE_KEYS, MemoryStorageBackend
from hudi_storage_local import LocalStorageBackend
from hudi_storage_s3 import S3StorageBackend, S3StorageOptions, S3StorageProvider, build_s3_client

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

pytestmark = pytest.mark.usefixtures("aws_env")

OPERATIONS: dict[str, Callable[[StorageBackend, str], object]] = {
    "uri": lambda b, k: b.uri(k),
    "read": lambda b, k: b.read(k),
    "read_versioned": lambda b, k: b.read_versioned(k),
    "write": lambda b, k: b.write(k, b"x"),
    "put_if_absent": lambda b, k: b.put_if_absent(k, b"x"),
    "compare_and_swap": lambda b, k: b.compare_and_swap(k, b"x", '"etag"'),
    "open_input": lambda b, k: b.open_input(k),
    "open_output": lambda b, k: b.open_output(k),
    "delete": lambda b, k: b.delete(k, missing_ok=False),
    "exists": lambda b, k: b.exists(k),
    "info": lambda b, k: b.info(k),
    "size": lambda b, k: b.size(k),
    "list": lambda b, k: b.list(k, recursive=True),
    "list_dirs": lambda b, k: b.list_dirs(k),
}
#: Keys rejected by every operation ("" is a valid prefix and root, so it is tested separately).
NON_EMPTY_UNSAFE = [k for k in UNSAFE_KEYS if k]


def _fail_if_called(*_args: object, **_kwargs: object) -> None:
    pytest.fail("I/O was attempted")


@pytest.fixture(scope="module")
def offline_client() -> S3Client:
    # Port 9 (discard) on loopback: even an escaped request could not reach anything.
    return build_s3_client(
        S3StorageOptions(
            endpoint_url="http://127.0.0.1:9", region="us-east-1", access_key_id="x", secret_access_key="y"
        )
    )


@pytest.fixture
def stubbed_s3(offline_client: S3Client) -> Iterator[S3StorageBackend]:
    with Stubber(offline_client) as stubber:
        yield S3StorageBackend("s3://bucket/warehouse/table", client=offline_client)
        stubber.assert_no_pending_responses()


@pytest.mark.parametrize("key", NON_EMPTY_UNSAFE)
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_s3_rejects_unsafe_keys_without_a_request(stubbed_s3: S3StorageBackend, operation: str, key: str) -> None:
    # An unstubbed request would raise UnStubbedResponseError, not InvalidStorageKeyError.
    with pytest.raises(InvalidStorageKeyError):
        OPERATIONS[operation](stubbed_s3, key)


@pytest.mark.parametrize("operation", sorted(set(OPERATIONS) - {"uri", "list", "list_dirs"}))
def test_s3_rejects_the_empty_key_without_a_request(stubbed_s3: S3StorageBackend, operation: str) -> None:
    with pytest.raises(InvalidStorageKeyError):
        OPERATIONS[operation](stubbed_s3, "")


@pytest.mark.parametrize(
    "uri", ["s3://Invalid_Bucket/t", "s3://192.168.1.1/t", "s3://xn--abc/t", "s3://ab/t", "s3://b--ol-s3/t"]
)
def test_provider_rejects_bad_buckets_before_building_a_client(uri: str) -> None:
    provider = S3StorageProvider(S3StorageOptions(), client_factory=_fail_if_called)  # type: ignore[arg-type]
    with mock.patch("boto3.session.Session", side_effect=_fail_if_called):
        with pytest.raises(InvalidBucketNameError):
            provider.open(uri)
        with pytest.raises(InvalidBucketNameError):
            S3StorageBackend(uri)


@pytest.mark.parametrize("uri", ["s3://bucket/../other", "s3://bucket/a//b", "gs://bucket/t", "s3://bucket/a\x00"])
def test_provider_rejects_unsafe_roots_before_building_a_client(uri: str) -> None:
    provider = S3StorageProvider(S3StorageOptions(), client_factory=_fail_if_called)  # type: ignore[arg-type]
    with (
        mock.patch("boto3.session.Session", side_effect=_fail_if_called),
        pytest.raises(InvalidStorageKeyError),
    ):
        provider.open(uri)


@pytest.mark.parametrize("key", NON_EMPTY_UNSAFE)
def test_memory_backend_rejects_unsafe_keys_without_touching_the_store(key: str) -> None:
    backend = MemoryStorageBackend()
    for name, op in OPERATIONS.items():
        with pytest.raises(InvalidStorageKeyError):
            op(backend, key)
        assert backend.store.io_count == 0, name


@pytest.mark.parametrize("key", [k for k in UNSAFE_KEYS if k])
def test_local_backend_writes_nothing_for_unsafe_keys(tmp_path: Path, key: str) -> None:
    root = tmp_path / "table"
    backend = LocalStorageBackend(str(root))
    for name, op in OPERATIONS.items():
        with pytest.raises(InvalidStorageKeyError):
            op(backend, key)
        assert sorted(p.name for p in tmp_path.iterdir()) == [], name
