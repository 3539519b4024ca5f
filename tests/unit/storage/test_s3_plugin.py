"""The ``s3`` plugin: registration, options validation, secrets kept out of reprs and logs."""

from __future__ import annotations

import logging
from unittest import mock

import pytest
from pydantic import ValidationError

import hudi_storage_s3
from hudi_framework.errors import InvalidBucketNameError, PluginConfigError, StorageError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.storage.resolve import open_storage
from hudi_storage_s3 import S3StorageBackend, S3StorageOptions, S3StorageProvider

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"


@pytest.mark.usefixtures("aws_env")
def test_registered_through_the_hook() -> None:
    pm = build_plugin_manager(load_entry_points=False, extra_plugins={"storage-s3": hudi_storage_s3})
    registry = ComponentRegistry.from_manager(pm)
    provider = registry.build(
        ComponentKind.STORAGE, "s3", {"region": "us-east-1", "endpoint_url": "http://127.0.0.1:9"}
    )
    assert isinstance(provider, S3StorageProvider)
    assert provider.schemes == ("s3", "s3a")


def test_installed_as_entry_point() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    assert {"local", "s3"} <= set(registry.names(ComponentKind.STORAGE))


def test_unknown_options_are_rejected() -> None:
    pm = build_plugin_manager(load_entry_points=False, extra_plugins={"storage-s3": hudi_storage_s3})
    with pytest.raises(PluginConfigError, match="endpoint"):
        ComponentRegistry.from_manager(pm).build(ComponentKind.STORAGE, "s3", {"endpoint": "http://x"})


@pytest.mark.parametrize(
    "options",
    [
        {"access_key_id": "AKIA"},
        {"secret_access_key": "s"},
        {"session_token": "t"},
        {"max_attempts": 0},
        {"multipart_chunksize": 1024},
        {"base_backoff_s": 2.0, "max_backoff_s": 1.0},
        {"addressing_style": "dns"},
    ],
)
def test_invalid_options(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        S3StorageOptions.model_validate(options)


def test_options_are_frozen() -> None:
    options = S3StorageOptions()
    with pytest.raises(ValidationError):
        options.region = "eu-west-1"  # type: ignore[misc]


def test_secrets_never_appear_in_reprs_or_dumps() -> None:
    options = S3StorageOptions(
        access_key_id="AKIAEXAMPLE", secret_access_key=SECRET, session_token=SECRET, region="us-east-1"
    )
    provider = S3StorageProvider(options, client_factory=lambda _o: None)  # type: ignore[arg-type,return-value]
    texts = [repr(options), str(options), options.model_dump_json(), repr(provider)]
    assert all(SECRET not in text for text in texts)
    assert "AKIAEXAMPLE" not in repr(options)
    assert options.secret_access_key is not None
    assert options.secret_access_key.get_secret_value() == SECRET


@pytest.mark.usefixtures("aws_env")
def test_secrets_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    options = S3StorageOptions(
        endpoint_url="http://127.0.0.1:9",
        region="us-east-1",
        access_key_id="AKIAEXAMPLE",
        secret_access_key=SECRET,
        max_attempts=2,
        base_backoff_s=0.001,
        max_backoff_s=0.001,
        connect_timeout_s=0.2,
    )
    with caplog.at_level(logging.DEBUG, logger="hudi_storage_s3"):
        backend = S3StorageProvider(options).open("s3://bucket/t")
        with pytest.raises(StorageError, match="failed"):  # nothing listens on port 9
            backend.read("k")
    assert "retry 1/1" in caplog.text
    assert SECRET not in caplog.text
    assert repr(backend) == "S3StorageBackend('s3://bucket/t')"


def test_provider_shares_one_client() -> None:
    built: list[S3StorageOptions] = []

    def factory(options: S3StorageOptions) -> object:
        built.append(options)
        return object()

    provider = S3StorageProvider(S3StorageOptions(), client_factory=factory)  # type: ignore[arg-type]
    first = provider.open("s3://bucket-one/a")
    second = provider.open("s3a://bucket-two/b/")
    assert len(built) == 1
    assert isinstance(first, S3StorageBackend)
    assert (first.root_uri, second.root_uri) == ("s3://bucket-one/a", "s3a://bucket-two/b")
    assert second.uri("x/y") == "s3a://bucket-two/b/x/y"


@pytest.mark.usefixtures("aws_env")
def test_open_storage_resolves_s3_uris_by_scheme() -> None:
    registry = ComponentRegistry.from_manager(
        build_plugin_manager(load_entry_points=False, extra_plugins={"storage-s3": hudi_storage_s3})
    )
    options = {"endpoint_url": "http://127.0.0.1:9", "region": "us-east-1"}
    for uri in ("s3://my-bucket/warehouse/t", "s3a://my-bucket/warehouse/t"):
        backend = open_storage(registry, uri, options=options)
        assert isinstance(backend, S3StorageBackend)
        assert backend.root_uri == uri


def test_open_storage_rejects_bad_bucket_before_any_client() -> None:
    registry = ComponentRegistry.from_manager(
        build_plugin_manager(load_entry_points=False, extra_plugins={"storage-s3": hudi_storage_s3})
    )
    with (
        mock.patch("boto3.session.Session", side_effect=AssertionError("client built")),
        pytest.raises(InvalidBucketNameError),
    ):
        open_storage(registry, "s3://Not_A_Bucket/t")
