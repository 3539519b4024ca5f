"""Secrets never appear in repr, str, JSON, exports, errors or tracebacks."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path

import pytest
from pydantic import SecretStr

from hudi_framework import Components
from hudi_framework.config import HudiSettings
from hudi_framework.errors import ConfigError

SECRET = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
TOKEN = "FwoGZXIvYXdzEXAMPLESESSIONTOKEN"
KEY_ID = "AKIAIOSFODNN7EXAMPLE"


def _all_text(settings: HudiSettings) -> str:
    return "\n".join(
        [
            repr(settings),
            str(settings),
            repr(settings.storage),
            str(settings.storage.s3),
            settings.model_dump_json(),
            str(settings.model_dump()),
            str(settings.to_hoodie_options(include_defaults=True)),
        ]
    )


def _assert_clean(text: str) -> None:
    for secret in (SECRET, TOKEN, KEY_ID):
        assert secret not in text


def test_secrets_from_hoodie_options_are_masked() -> None:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.aws.access.key": KEY_ID, "hoodie.aws.secret.key": SECRET, "hoodie.aws.session.token": TOKEN},
        env=False,
    )
    assert isinstance(settings.storage.s3.secret_access_key, SecretStr)
    assert settings.storage.s3.secret_access_key.get_secret_value() == SECRET
    _assert_clean(_all_text(settings))
    exported = settings.to_hoodie_options(include_defaults=True)
    assert not any(k.startswith("hoodie.aws") or k.endswith((".key", ".token")) for k in exported)
    _assert_clean(str(settings.to_spark_options()))


def test_secrets_from_env_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_STORAGE__S3__ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("HUDI_STORAGE__S3__SECRET_ACCESS_KEY", SECRET)
    settings = HudiSettings.load()
    assert settings.storage.s3.access_key_id is not None
    assert settings.storage.s3.access_key_id.get_secret_value() == KEY_ID
    _assert_clean(_all_text(settings))


def test_secrets_reach_the_s3_backend_options_masked() -> None:
    settings = HudiSettings.load(
        overrides={"storage": {"s3": {"access_key_id": KEY_ID, "secret_access_key": SECRET, "region": "eu-west-1"}}},
        env=False,
    )
    options = Components.from_settings(settings).storage_spec("s3://bucket/table").options
    # The s3 plugin's options model extends S3Settings: the key id stays a secret too.
    assert isinstance(options["access_key_id"], SecretStr)
    assert options["access_key_id"].get_secret_value() == KEY_ID
    assert isinstance(options["secret_access_key"], SecretStr)
    assert options["region"] == "eu-west-1"
    assert Components.from_settings(settings).storage_spec("/local/table").options == {}


def _error_text(error: BaseException) -> str:
    parts = [str(error), repr(error), "".join(traceback.format_exception(error))]
    for linked in (error.__cause__, error.__context__):
        if linked is not None:
            parts += [str(linked), repr(linked)]
    return "\n".join(parts)


@pytest.mark.parametrize(
    "load",
    [
        # A secret without its key id: a cross-field error on the secret's own field.
        lambda: HudiSettings.from_hoodie_options({"hoodie.aws.secret.key": SECRET}, env=False),
        lambda: HudiSettings.load(overrides={"storage.s3": {"secret_access_key": SECRET}}, env=False),
        # A secret typed into the wrong field.
        lambda: HudiSettings.load(overrides={"write.operation": SECRET}, env=False),
        lambda: HudiSettings.load(overrides={"storage.s3": {"endpoint_url": SECRET}}, env=False),
        lambda: HudiSettings.load(overrides={"lock.num_retries": SECRET}, env=False),
        # A secret under a misspelled key.
        lambda: HudiSettings.load(overrides={"storage.s3": {"secret_acess_key": SECRET}}, env=False),
        lambda: HudiSettings.from_hoodie_options({"hoodie.aws.secret.kye": SECRET}, env=False),
        # A secret in a free options table.
        lambda: HudiSettings.load(overrides={"storage.options": {"secret_access_key": SECRET}}, env=False),
        # A secret of the wrong type.
        lambda: HudiSettings.load(
            overrides={"storage.s3": {"access_key_id": KEY_ID, "secret_access_key": [SECRET]}}, env=False
        ),
    ],
)
def test_errors_never_contain_secrets(load: object) -> None:
    with pytest.raises(ConfigError) as info:
        load()  # type: ignore[operator]
    _assert_clean(_error_text(info.value))


def test_env_secret_errors_never_contain_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_STORAGE__S3__SECRET_ACCESS_KEY", SECRET)  # no key id
    with pytest.raises(ConfigError) as info:
        HudiSettings.load()
    assert info.value.key == "HUDI_STORAGE__S3__SECRET_ACCESS_KEY"  # type: ignore[attr-defined]
    _assert_clean(_error_text(info.value))


def test_file_secret_errors_never_contain_secrets(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(f"storage:\n  s3:\n    secret_access_key: {SECRET}\n    session_token: {TOKEN}\n")
    with pytest.raises(ConfigError) as info:
        HudiSettings.load(path, env=False)
    _assert_clean(_error_text(info.value))


def test_loading_logs_no_secrets(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG):
        HudiSettings.from_hoodie_options({"hoodie.aws.access.key": KEY_ID, "hoodie.aws.secret.key": SECRET}, env=False)
    _assert_clean(caplog.text)
