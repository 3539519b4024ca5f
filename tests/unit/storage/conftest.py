"""Fixtures for storage unit tests: dummy AWS environment and an in-process moto bucket."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from moto import mock_aws

from hudi_framework.testing import DUMMY_AWS_ENV, serialized_moto_s3
from hudi_storage_s3 import S3StorageOptions, build_s3_client

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

#: Options of the in-process client: explicit fake credentials, small multipart sizes.
MOTO_OPTIONS = S3StorageOptions(
    region="us-east-1",
    access_key_id="testing",
    secret_access_key="testing",
    multipart_threshold=5 * 1024 * 1024,
    multipart_chunksize=5 * 1024 * 1024,
)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and region; no AWS config files, profiles or instance metadata."""
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def moto_client() -> Iterator[S3Client]:
    """One in-process moto client per module (building clients is slow)."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in DUMMY_AWS_ENV.items():
            mp.setenv(name, value)
        with mock_aws(), serialized_moto_s3():
            yield build_s3_client(MOTO_OPTIONS)


@pytest.fixture
def bucket(moto_client: S3Client) -> str:
    """A fresh bucket in the in-process moto."""
    name = f"hudi-unit-{uuid.uuid4().hex[:12]}"
    moto_client.create_bucket(Bucket=name)
    return name
