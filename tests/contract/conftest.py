"""Fixtures for the contract runs: dummy AWS environment and moto (in-process and on 127.0.0.1)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from hudi_framework.testing import DUMMY_AWS_ENV, moto_server, serialized_moto_s3
from hudi_storage_s3 import S3StorageOptions, build_s3_client

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and region; no AWS config files, profiles or instance metadata."""
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)


def build_test_client(options: S3StorageOptions) -> S3Client:
    """A client built under the dummy environment, so no real profile or config file is read."""
    with pytest.MonkeyPatch.context() as mp:
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        for name, value in DUMMY_AWS_ENV.items():
            mp.setenv(name, value)
        return build_s3_client(options)


@pytest.fixture
def bucket_name() -> str:
    """A fresh bucket per test: moto state is shared by the server and in-process mocks."""
    return f"hudi-contract-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """One moto server on 127.0.0.1 (free port) for the whole session."""
    with moto_server() as endpoint:
        yield endpoint


@pytest.fixture
def atomic_moto() -> Iterator[None]:
    """Work around moto's races under concurrent requests (see serialized_moto_s3)."""
    with serialized_moto_s3():
        yield
