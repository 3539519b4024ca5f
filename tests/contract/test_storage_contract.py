"""Every shipped storage backend runs the one contract suite.

* local: a temporary directory, as a plain path and as a ``file://`` URI;
* memory: :class:`hudi_framework.testing.MemoryStorageBackend`;
* s3 on moto in-process (``mock_aws``), with tiny read thresholds so ranged GETs are exercised;
* s3 on moto's ``ThreadedMotoServer`` on 127.0.0.1, reached over HTTP as another process would.

S3 clients are built once per class (building one costs ~0.2 s) and shared through the provider's
``client_factory``; each test still gets its own bucket.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from moto import mock_aws

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.testing import MemoryStorageBackend, StorageBackendContract
from hudi_storage_local import LocalStorageProvider
from hudi_storage_s3 import S3StorageOptions, S3StorageProvider
from tests.contract.conftest import build_test_client

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


class TestLocalStorage(StorageBackendContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> StorageBackend:
        return LocalStorageProvider().open(str(tmp_path / "table"))


class TestLocalStorageFileUri(StorageBackendContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> StorageBackend:
        return LocalStorageProvider().open((tmp_path / "a table").as_uri())


class TestMemoryStorage(StorageBackendContract):
    @pytest.fixture
    def backend(self) -> StorageBackend:
        return MemoryStorageBackend("memory://contract/table")


_IN_PROCESS = S3StorageOptions(
    region="us-east-1",
    access_key_id="testing",
    secret_access_key="testing",
    whole_object_read_max=4096,
    range_block_size=4096,
)


# Class-scoped S3 clients are module-level fixtures: pytest 9.2 deprecates class-scoped fixtures
# written as instance methods (and the warnings filter makes that an error).
@pytest.fixture(scope="class")
def in_process_client() -> Iterator[S3Client]:
    with mock_aws():
        yield build_test_client(_IN_PROCESS)


@pytest.fixture(scope="class")
def server_options(moto_endpoint: str) -> S3StorageOptions:
    assert moto_endpoint.startswith("http://127.0.0.1:")
    return S3StorageOptions(
        endpoint_url=moto_endpoint,
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
    )


@pytest.fixture(scope="class")
def server_client(server_options: S3StorageOptions) -> S3Client:
    return build_test_client(server_options)


@pytest.mark.s3
@pytest.mark.usefixtures("aws_env", "atomic_moto")
class TestS3StorageMotoInProcess(StorageBackendContract):
    @pytest.fixture
    def backend(self, in_process_client: S3Client, bucket_name: str) -> StorageBackend:
        in_process_client.create_bucket(Bucket=bucket_name)
        provider = S3StorageProvider(_IN_PROCESS, client_factory=lambda _options: in_process_client)
        return provider.open(f"s3://{bucket_name}/warehouse/table")


@pytest.mark.s3
@pytest.mark.usefixtures("aws_env", "atomic_moto")
class TestS3StorageMotoServer(StorageBackendContract):
    @pytest.fixture
    def backend(self, server_options: S3StorageOptions, server_client: S3Client, bucket_name: str) -> StorageBackend:
        server_client.create_bucket(Bucket=bucket_name)
        provider = S3StorageProvider(server_options, client_factory=lambda _options: server_client)
        return provider.open(f"s3a://{bucket_name}/warehouse/table/")
