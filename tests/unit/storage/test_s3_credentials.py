"""The ``s3`` plugin's client signs with exactly the credentials ``credentials_provider`` names
(Hadoop S3A's provider classes mapped onto boto3's providers), against a moto server on 127.0.0.1."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import NoCredentialsError

from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_storage_s3 import S3StorageOptions, build_s3_client
from tests.faults.s3_requests import RequestLog, isolated_aws_env, request_log

pytestmark = pytest.mark.s3

STATIC_KEY = "AKIAHUDISTATIC000001"
ENV_KEY = "AKIAHUDIENVIRONMENT1"


@pytest.fixture
def bucket(endpoint: str) -> str:
    name = f"hudi-creds-{uuid.uuid4().hex[:10]}"
    admin = boto3.session.Session(
        aws_access_key_id=DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"], aws_secret_access_key="testing"
    ).client("s3", endpoint_url=endpoint, region_name="us-east-1")
    admin.create_bucket(Bucket=name)
    return name


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No AWS variables, files or instance metadata; only what a test sets."""
    import os

    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in isolated_aws_env({"PATH": "/usr/bin:/bin"}).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def log() -> Iterator[RequestLog]:
    with request_log() as recorded:
        yield recorded


def _options(endpoint: str, **values: object) -> S3StorageOptions:
    return S3StorageOptions.model_validate(
        {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path", "max_attempts": 1, **values}
    )


def _static() -> dict[str, object]:
    return {"access_key_id": STATIC_KEY, "secret_access_key": "static-secret"}


def _env_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ENV_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "env-secret")


@pytest.mark.usefixtures("clean_env")
def test_static_keys_sign_by_default(endpoint: str, bucket: str, log: RequestLog) -> None:
    build_s3_client(_options(endpoint, **_static())).head_bucket(Bucket=bucket)
    assert log.key_ids(bucket) == {STATIC_KEY}


@pytest.mark.parametrize(
    ("provider", "signed_by"),
    [
        ("environment", {ENV_KEY}),  # the environment only
        ("default", {ENV_KEY}),  # boto3's default chain starts with the environment
        ("org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider", {None}),  # unsigned
    ],
)
@pytest.mark.usefixtures("clean_env")
def test_with_environment_keys_set(
    provider: str,
    signed_by: set[str | None],
    endpoint: str,
    bucket: str,
    log: RequestLog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _env_keys(monkeypatch)
    build_s3_client(_options(endpoint, credentials_provider=provider)).head_bucket(Bucket=bucket)
    assert log.key_ids(bucket) == signed_by


@pytest.mark.usefixtures("clean_env")
def test_instance_provider_ignores_environment_keys(
    endpoint: str, bucket: str, log: RequestLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    _env_keys(monkeypatch)
    client = build_s3_client(_options(endpoint, credentials_provider="instance"))
    with pytest.raises(NoCredentialsError):
        client.head_bucket(Bucket=bucket)
    assert log.count(bucket) == 0  # nothing was sent, signed with the environment's key or otherwise


@pytest.mark.usefixtures("clean_env")
def test_a_chain_falls_through_to_static_keys(
    endpoint: str, bucket: str, log: RequestLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    chain = (
        "com.amazonaws.auth.EnvironmentVariableCredentialsProvider,"
        "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
    )
    build_s3_client(_options(endpoint, credentials_provider=chain, **_static())).head_bucket(Bucket=bucket)
    assert log.key_ids(bucket) == {STATIC_KEY}  # no environment keys: the next provider answers
    _env_keys(monkeypatch)
    build_s3_client(_options(endpoint, credentials_provider=chain, **_static())).head_bucket(Bucket=bucket)
    assert log.key_ids(bucket) == {STATIC_KEY, ENV_KEY}
