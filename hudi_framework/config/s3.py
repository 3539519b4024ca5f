"""S3 connection settings (``storage.s3``): endpoint, region, addressing and credentials.

This is the one model of an S3 connection: ``HudiSettings.storage.s3`` is an :class:`S3Settings`,
and the ``s3`` storage plugin's options model extends it with its tuning options, so a connection
setting is declared, validated and documented once. Apache Hudi's ``hoodie.aws.*`` keys and Hadoop
S3A's ``fs.s3a.*`` keys map onto these fields (:mod:`hudi_framework.config.hoodie_keys`); the value
conversions they need are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Final, Literal, Self

from pydantic import BeforeValidator, Field, SecretStr, model_validator
from pydantic_settings import NoDecode

from hudi_framework.config.base import CrossFieldError, Section
from hudi_framework.config.enums import S3CredentialsSource
from hudi_framework.vocabulary import HoodieValueError

__all__ = [
    "PROVIDER_CLASSES",
    "S3Settings",
    "parse_credentials_providers",
    "parse_path_style",
    "parse_s3a_endpoint",
    "render_credentials_providers",
    "render_path_style",
]

_Src = S3CredentialsSource

#: Credential provider classes of Hadoop S3A and the AWS SDKs (simple names: the packages differ
#: between SDK v1, SDK v2 and shaded builds) and the source each one means here.
PROVIDER_CLASSES: Final[Mapping[str, S3CredentialsSource]] = MappingProxyType(
    {
        "SimpleAWSCredentialsProvider": _Src.STATIC,
        "TemporaryAWSCredentialsProvider": _Src.TEMPORARY,
        "AnonymousAWSCredentialsProvider": _Src.ANONYMOUS,
        "AnonymousCredentialsProvider": _Src.ANONYMOUS,
        "EnvironmentVariableCredentialsProvider": _Src.ENVIRONMENT,
        "IAMInstanceCredentialsProvider": _Src.INSTANCE,
        "InstanceProfileCredentialsProvider": _Src.INSTANCE,
        "ContainerCredentialsProvider": _Src.INSTANCE,
        "EC2ContainerCredentialsProviderWrapper": _Src.INSTANCE,
        "WebIdentityTokenCredentialsProvider": _Src.WEB_IDENTITY,
        "WebIdentityTokenFileCredentialsProvider": _Src.WEB_IDENTITY,
        "DefaultAWSCredentialsProviderChain": _Src.DEFAULT,
        "DefaultCredentialsProvider": _Src.DEFAULT,
    }
)
#: The class each source is exported as: names that Hadoop 3.3 (SDK v1) loads and 3.4 maps to SDK v2.
_EXPORT_CLASSES: Final[Mapping[S3CredentialsSource, str]] = MappingProxyType(
    {
        _Src.STATIC: "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider",
        _Src.TEMPORARY: "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
        _Src.ANONYMOUS: "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider",
        _Src.ENVIRONMENT: "com.amazonaws.auth.EnvironmentVariableCredentialsProvider",
        _Src.INSTANCE: "org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider",
        _Src.WEB_IDENTITY: "com.amazonaws.auth.WebIdentityTokenCredentialsProvider",
        _Src.DEFAULT: "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
    }
)
_STATIC_KINDS: Final = frozenset({_Src.STATIC, _Src.TEMPORARY})


def _source(item: object) -> object:
    if not isinstance(item, str):
        return item
    text = item.strip()
    simple = text.rsplit(".", 1)[-1]
    if simple in PROVIDER_CLASSES:
        return PROVIDER_CLASSES[simple]
    if "." in text or simple.endswith(("Provider", "Chain")):
        known = ", ".join(PROVIDER_CLASSES)
        raise HoodieValueError(f"credentials provider class {simple!r} is not supported here; supported: {known}")
    return text  # one of this project's names; the enum checks it


def parse_credentials_providers(value: object) -> object:
    """Sources from names or Java class names, given as a comma-separated string or a list.

    Raises:
        HoodieValueError: A class without a counterpart here; the message names it and lists the supported ones.
    """
    if isinstance(value, str):
        return tuple(_source(part) for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple):
        return tuple(_source(part) for part in value)
    return value


def render_credentials_providers(value: object) -> str | None:
    """The chain as ``fs.s3a.aws.credentials.provider`` class names; None when empty."""
    if not isinstance(value, tuple) or not value:
        return None
    return ",".join(_EXPORT_CLASSES[S3CredentialsSource(v)] for v in value)


def parse_s3a_endpoint(value: object) -> object:
    """``fs.s3a.endpoint`` may be a bare host, which S3A reaches over HTTPS; make it a URL."""
    if isinstance(value, str):
        text = value.strip()
        return text if "://" in text or not text else f"https://{text}"
    return value


def parse_path_style(value: object) -> str:
    """``fs.s3a.path.style.access``: ``true`` is path addressing, ``false`` virtual-host addressing."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        value = value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise HoodieValueError("expected true or false")
    return "path" if value else "virtual"


def render_path_style(value: object) -> str | None:
    """``addressing_style`` as ``fs.s3a.path.style.access``; None for ``auto`` (no S3A spelling)."""
    return {"path": "true", "virtual": "false"}.get(str(value))


#: A credentials chain, given by source names or Hadoop S3A / AWS SDK class names.
CredentialsChain = Annotated[tuple[S3CredentialsSource, ...], NoDecode, BeforeValidator(parse_credentials_providers)]


def _at(field: str) -> tuple[str, ...]:
    return ("storage", "s3", field)


class S3Settings(Section):
    """Typed S3 connection settings. Credentials are secrets: masked in ``repr``, JSON and errors.

    Leave credentials unset to use the AWS default chain (environment, web identity, instance
    profile); this project never reads ``~/.aws`` itself. The ``s3`` storage plugin's options
    model (``S3StorageOptions``) extends this one; its tuning options go in ``storage.options``.
    """

    region: str | None = Field(default=None, min_length=1)
    """AWS region of the bucket; unset lets boto3 resolve it."""
    endpoint_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    """Custom endpoint (MinIO, moto, a VPC endpoint); unset means AWS's endpoint for the region."""
    access_key_id: SecretStr | None = None
    """Access key id (masked too: it identifies the account)."""
    secret_access_key: SecretStr | None = None
    """Secret access key."""
    session_token: SecretStr | None = None
    """Session token of temporary credentials."""
    addressing_style: Literal["auto", "virtual", "path"] = "auto"
    """Bucket addressing; ``path`` is needed by some S3-compatible stores."""
    credentials_provider: CredentialsChain = ()
    """Where credentials come from, tried in order: ``static``, ``temporary``, ``environment``,
    ``instance``, ``web-identity``, ``default`` or ``anonymous``, or Hadoop S3A / AWS SDK provider
    class names. Empty: the access key above when set, else boto3's default chain."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.access_key_id is None) != (self.secret_access_key is None):
            raise CrossFieldError("access_key_id and secret_access_key are set together", _at("secret_access_key"))
        if self.session_token is not None and self.access_key_id is None:
            raise CrossFieldError("session_token needs access_key_id and secret_access_key", _at("session_token"))
        chain = self.credentials_provider
        if not chain:
            return self
        if _Src.ANONYMOUS in chain and len(chain) > 1:
            raise CrossFieldError("anonymous can not be combined with other providers", _at("credentials_provider"))
        keys = self.access_key_id is not None
        if keys and not _STATIC_KINDS & set(chain):
            raise CrossFieldError(
                "access_key_id is set but no provider in credentials_provider uses it (add static)",
                _at("access_key_id"),
            )
        if set(chain) <= _STATIC_KINDS:
            if not keys:
                raise CrossFieldError(
                    f"provider {chain[0].value} needs access_key_id and secret_access_key", _at("credentials_provider")
                )
            if _Src.STATIC not in chain and self.session_token is None:
                raise CrossFieldError("provider temporary needs session_token", _at("credentials_provider"))
        return self

    def static_credentials(self, source: S3CredentialsSource) -> tuple[str, str, str | None] | None:
        """(access key id, secret, session token) that ``source`` signs with; None when it is not a
        static source or its keys are not all set (a chain then moves on, as S3A's does)."""
        if source not in _STATIC_KINDS or self.access_key_id is None or self.secret_access_key is None:
            return None
        token = self.session_token.get_secret_value() if self.session_token is not None else None
        if source is _Src.TEMPORARY and token is None:
            return None
        return self.access_key_id.get_secret_value(), self.secret_access_key.get_secret_value(), token
