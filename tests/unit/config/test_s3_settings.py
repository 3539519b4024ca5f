"""``storage.s3``: one model for the kernel and the ``s3`` plugin, set by field path, ``HUDI_*``
variables, Apache Hudi's ``hoodie.aws.*`` keys or Hadoop S3A's ``fs.s3a.*`` keys, and exported
again so that a Spark read sees the same storage."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr

from hudi_framework import Components
from hudi_framework.config import HudiSettings, S3CredentialsSource, S3Settings
from hudi_framework.errors import ConfigError, InvalidConfigValueError, UnknownConfigKeyError
from hudi_storage_s3 import S3StorageOptions

KEY_ID = "AKIAHUDIUNITTEST0001"
SECRET = "unit-secret-value-not-echoed"
TOKEN = "unit-session-token-not-echoed"
ENDPOINT = "http://127.0.0.1:9000"
Src = S3CredentialsSource


def _s3(options: dict[str, str]) -> S3Settings:
    return HudiSettings.from_hoodie_options(options, env=False).storage.s3


def _options(settings: HudiSettings, base: str) -> dict[str, object]:
    return dict(Components.from_settings(settings).storage_spec(base).options)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None else None


@pytest.mark.parametrize("prefix", ["fs.s3a.", "spark.hadoop.fs.s3a."])
def test_hadoop_s3a_keys_set_every_s3_field(prefix: str) -> None:
    s3 = _s3(
        {
            f"{prefix}endpoint": ENDPOINT,
            f"{prefix}endpoint.region": "eu-west-1",
            f"{prefix}path.style.access": "true",
            f"{prefix}access.key": KEY_ID,
            f"{prefix}secret.key": SECRET,
            f"{prefix}session.token": TOKEN,
            f"{prefix}aws.credentials.provider": "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
        }
    )
    assert (s3.endpoint_url, s3.region, s3.addressing_style) == (ENDPOINT, "eu-west-1", "path")
    assert (_secret(s3.access_key_id), _secret(s3.secret_access_key), _secret(s3.session_token)) == (
        KEY_ID,
        SECRET,
        TOKEN,
    )
    assert s3.credentials_provider == (Src.TEMPORARY,)


def test_apache_hudi_aws_keys_set_the_credentials() -> None:
    s3 = _s3({"hoodie.aws.access.key": KEY_ID, "hoodie.aws.secret.key": SECRET, "hoodie.aws.session.token": TOKEN})
    assert (_secret(s3.access_key_id), _secret(s3.secret_access_key), _secret(s3.session_token)) == (
        KEY_ID,
        SECRET,
        TOKEN,
    )


def test_an_s3a_endpoint_without_scheme_is_https_like_in_hadoop() -> None:
    assert _s3({"fs.s3a.endpoint": "s3.eu-west-1.amazonaws.com"}).endpoint_url == "https://s3.eu-west-1.amazonaws.com"


def test_path_style_false_means_virtual_host_addressing() -> None:
    assert _s3({"fs.s3a.path.style.access": "false"}).addressing_style == "virtual"
    with pytest.raises(InvalidConfigValueError) as info:
        _s3({"fs.s3a.path.style.access": "sometimes"})
    assert info.value.key == "fs.s3a.path.style.access"


@pytest.mark.parametrize(
    ("provider", "source"),
    [
        ("org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider", Src.STATIC),
        ("org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider", Src.TEMPORARY),
        ("org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider", Src.ANONYMOUS),
        ("software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider", Src.ANONYMOUS),
        ("com.amazonaws.auth.EnvironmentVariableCredentialsProvider", Src.ENVIRONMENT),
        ("software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider", Src.ENVIRONMENT),
        ("org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider", Src.INSTANCE),
        ("com.amazonaws.auth.InstanceProfileCredentialsProvider", Src.INSTANCE),
        ("software.amazon.awssdk.auth.credentials.ContainerCredentialsProvider", Src.INSTANCE),
        ("com.amazonaws.auth.WebIdentityTokenCredentialsProvider", Src.WEB_IDENTITY),
        ("com.amazonaws.auth.DefaultAWSCredentialsProviderChain", Src.DEFAULT),
        ("software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider", Src.DEFAULT),
        ("EnvironmentVariableCredentialsProvider", Src.ENVIRONMENT),  # a simple class name
        ("environment", Src.ENVIRONMENT),  # this project's own name
    ],
)
def test_s3a_credential_provider_classes_map_to_a_source(provider: str, source: S3CredentialsSource) -> None:
    keys = {"fs.s3a.access.key": KEY_ID, "fs.s3a.secret.key": SECRET} if source is Src.STATIC else {}
    if source is Src.TEMPORARY:
        keys = {**{"fs.s3a.access.key": KEY_ID, "fs.s3a.secret.key": SECRET}, "fs.s3a.session.token": TOKEN}
    assert _s3({"fs.s3a.aws.credentials.provider": provider, **keys}).credentials_provider == (source,)


def test_hadoop_s_default_provider_list_is_a_chain() -> None:
    chain = (
        "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider, "
        "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider, "
        "com.amazonaws.auth.EnvironmentVariableCredentialsProvider, "
        "org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider"
    )
    # Without keys the static entries are skipped, as S3A skips them.
    assert _s3({"fs.s3a.aws.credentials.provider": chain}).credentials_provider == (
        Src.TEMPORARY,
        Src.STATIC,
        Src.ENVIRONMENT,
        Src.INSTANCE,
    )


def test_an_unsupported_provider_class_is_a_config_error_naming_it() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        _s3({"fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.auth.AssumedRoleCredentialProvider"})
    assert info.value.key == "fs.s3a.aws.credentials.provider"
    assert "AssumedRoleCredentialProvider" in str(info.value)
    assert "SimpleAWSCredentialsProvider" in str(info.value)  # lists what is supported


def test_provider_classes_are_accepted_in_files_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[storage.s3]\ncredentials_provider = ["com.amazonaws.auth.EnvironmentVariableCredentialsProvider"]\n'
    )
    assert HudiSettings.load(path, env=False).storage.s3.credentials_provider == (Src.ENVIRONMENT,)
    monkeypatch.setenv("HUDI_STORAGE__S3__CREDENTIALS_PROVIDER", "anonymous")
    assert HudiSettings.load().storage.s3.credentials_provider == (Src.ANONYMOUS,)


@pytest.mark.parametrize(
    ("s3", "field"),
    [
        ({"credentials_provider": "static"}, "credentials_provider"),  # no keys to use
        (
            {"credentials_provider": "temporary", "access_key_id": KEY_ID, "secret_access_key": SECRET},
            "credentials_provider",
        ),  # no session token
        # Keys the chosen provider never uses would be silently ignored.
        (
            {"credentials_provider": "environment", "access_key_id": KEY_ID, "secret_access_key": SECRET},
            "access_key_id",
        ),
        ({"credentials_provider": "anonymous,environment"}, "credentials_provider"),
    ],
)
def test_inconsistent_credentials_are_rejected(s3: dict[str, str], field: str) -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(overrides={"storage.s3": s3}, env=False)
    assert info.value.key == f"storage.s3.{field}"
    for secret in (KEY_ID, SECRET):
        assert secret not in str(info.value)


def test_two_spellings_of_one_s3_field_must_agree() -> None:
    same = _s3({"hoodie.aws.access.key": KEY_ID, "fs.s3a.access.key": KEY_ID, "fs.s3a.secret.key": SECRET})
    assert _secret(same.access_key_id) == KEY_ID
    with pytest.raises(InvalidConfigValueError) as info:
        _s3({"hoodie.aws.access.key": KEY_ID, "fs.s3a.access.key": "AKIAOTHER", "fs.s3a.secret.key": SECRET})
    assert KEY_ID not in str(info.value)


def test_storage_field_paths_are_accepted_among_hoodie_options() -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "storage.s3.endpoint_url": ENDPOINT,
            "storage.s3.region": "us-east-1",
            "storage.backend": "s3",
            "storage.options.max_attempts": "3",
            "storage.s3.access_key_id": KEY_ID,
            "storage.s3.secret_access_key": SECRET,
        },
        env=False,
    )
    assert settings.storage.s3.endpoint_url == ENDPOINT
    assert settings.storage.backend == "s3"
    assert settings.storage.options == {"max_attempts": "3"}
    with pytest.raises(InvalidConfigValueError):
        HudiSettings.from_hoodie_options(
            {"storage.s3.endpoint_url": ENDPOINT, "fs.s3a.endpoint": "http://127.0.0.1:9999"}, env=False
        )
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.from_hoodie_options({"storage.s3.endpoint": ENDPOINT}, env=False)
    assert "storage.s3.endpoint_url" in str(info.value)


def _configured() -> HudiSettings:
    return HudiSettings.load(
        overrides={
            "table.name": "t",
            "storage.backend": "s3",
            "storage.options": {"max_attempts": 3},
            "storage.s3": {
                "endpoint_url": ENDPOINT,
                "region": "us-east-1",
                "addressing_style": "path",
                "access_key_id": KEY_ID,
                "secret_access_key": SECRET,
                "session_token": TOKEN,
                "credentials_provider": "temporary,environment",
            },
        },
        env=False,
    )


def test_export_carries_the_s3_settings_and_secrets_only_on_request() -> None:
    settings = _configured()
    public = settings.to_hoodie_options()
    assert public["fs.s3a.endpoint"] == ENDPOINT
    assert public["fs.s3a.endpoint.region"] == "us-east-1"
    assert public["fs.s3a.path.style.access"] == "true"
    assert public["fs.s3a.aws.credentials.provider"] == (
        "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider,com.amazonaws.auth.EnvironmentVariableCredentialsProvider"
    )
    assert not {KEY_ID, SECRET, TOKEN} & set(public.values())
    full = settings.to_hoodie_options(include_secrets=True)
    assert (full["fs.s3a.access.key"], full["fs.s3a.secret.key"], full["fs.s3a.session.token"]) == (
        KEY_ID,
        SECRET,
        TOKEN,
    )


def test_spark_options_round_trip_the_whole_storage_section() -> None:
    settings = _configured()
    options = settings.to_spark_options(include_secrets=True)
    assert options["storage.options.max_attempts"] == "3"
    assert options["storage.backend"] == "s3"
    again = HudiSettings.from_hoodie_options(options, env=False)
    assert (again.storage.backend, again.storage.s3) == (settings.storage.backend, settings.storage.s3)
    # Option values are strings; the plugin's options model reads them as it reads the originals.
    base = "s3://bucket/t"
    assert S3StorageOptions.model_validate(_options(again, base)) == S3StorageOptions.model_validate(
        _options(settings, base)
    )
    assert again.table.name == "t"
    assert SECRET not in str(settings.to_spark_options())


def test_the_plugin_options_model_is_the_settings_model_plus_tuning() -> None:
    assert issubclass(S3StorageOptions, S3Settings)
    options = S3StorageOptions.model_validate(_options(_configured(), "s3://bucket/t"))
    assert options.endpoint_url == ENDPOINT
    assert options.max_attempts == 3
    assert options.credentials_provider == (Src.TEMPORARY, Src.ENVIRONMENT)
    assert options.access_key_id is not None
    assert options.access_key_id.get_secret_value() == KEY_ID
    assert KEY_ID not in repr(options)
    assert SECRET not in repr(options)


def test_credentials_in_the_free_options_table_are_refused() -> None:
    with pytest.raises(ConfigError):
        HudiSettings.load(overrides={"storage.options": {"access_key_id": KEY_ID}}, env=False)
