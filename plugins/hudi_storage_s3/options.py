"""Options of the ``s3`` storage backend."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

_MIB = 1024 * 1024
#: S3 rejects multipart parts below 5 MiB (except the last one).
MIN_PART_SIZE = 5 * _MIB


class S3StorageOptions(BaseModel):
    """Options of the ``s3`` backend (``[storage.options]`` in config).

    Credentials left unset come from boto3's usual chain (environment, web identity, instance
    profile), resolved in a fresh session that never touches boto3's default session. Secrets are
    :class:`~pydantic.SecretStr`, so they never appear in reprs, logs or ``model_dump_json``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Custom endpoint (MinIO, moto, a VPC endpoint); None means AWS.
    endpoint_url: str | None = None
    #: AWS region; None lets boto3 resolve it (``AWS_REGION`` / ``AWS_DEFAULT_REGION``).
    region: str | None = None
    #: Access key id; must be given together with ``secret_access_key``.
    access_key_id: str | None = Field(default=None, repr=False)
    #: Secret access key.
    secret_access_key: SecretStr | None = None
    #: Session token of temporary credentials.
    session_token: SecretStr | None = None
    #: ``auto`` lets botocore choose; ``path`` is needed by some S3-compatible stores.
    addressing_style: Literal["auto", "virtual", "path"] = "auto"

    #: Total attempts per request, the first included (our retry policy is the only one).
    max_attempts: int = Field(default=8, ge=1, le=50)
    #: Backoff before the first retry, in seconds; doubles per attempt, with full jitter.
    base_backoff_s: float = Field(default=0.1, gt=0, le=60)
    #: Upper bound of one backoff, in seconds.
    max_backoff_s: float = Field(default=10.0, gt=0, le=600)
    #: Connect timeout per request, in seconds.
    connect_timeout_s: float = Field(default=10.0, gt=0)
    #: Read timeout per request, in seconds.
    read_timeout_s: float = Field(default=60.0, gt=0)
    #: Size of botocore's connection pool (raise it for many concurrent writers in one process).
    max_pool_connections: int = Field(default=32, ge=1)

    #: ``open_output`` streams at least this large are uploaded with multipart upload.
    multipart_threshold: int = Field(default=64 * _MIB, ge=MIN_PART_SIZE)
    #: Part size of multipart uploads.
    multipart_chunksize: int = Field(default=16 * _MIB, ge=MIN_PART_SIZE, le=5 * 1024 * _MIB)
    #: ``open_input`` reads objects up to this size with one GET; larger ones with ranged GETs.
    whole_object_read_max: int = Field(default=8 * _MIB, ge=0)
    #: Minimum size of one ranged GET; small sequential reads are served from this read-ahead.
    range_block_size: int = Field(default=1 * _MIB, ge=4096)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if (self.access_key_id is None) != (self.secret_access_key is None):
            raise ValueError("access_key_id and secret_access_key must be given together")
        if self.session_token is not None and self.access_key_id is None:
            raise ValueError("session_token needs access_key_id and secret_access_key")
        if self.max_backoff_s < self.base_backoff_s:
            raise ValueError("max_backoff_s must be >= base_backoff_s")
        return self
