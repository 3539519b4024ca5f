"""Options of the ``s3`` storage backend."""

from __future__ import annotations

from typing import Self

from pydantic import ConfigDict, Field, model_validator

from hudi_framework import S3Settings

_MIB = 1024 * 1024
#: S3 rejects multipart parts below 5 MiB (except the last one).
MIN_PART_SIZE = 5 * _MIB


class S3StorageOptions(S3Settings):
    """Options of the ``s3`` backend: the connection settings of ``storage.s3`` (inherited from
    :class:`~hudi_framework.S3Settings`, the one model of an S3 connection) plus tuning,
    which goes in ``[storage.options]`` in config.

    Credentials left unset come from boto3's usual chain (environment, web identity, instance
    profile), resolved in a fresh session that never touches boto3's default session;
    ``credentials_provider`` narrows or orders that chain. Secrets are
    :class:`~pydantic.SecretStr`, so they never appear in reprs, logs or ``model_dump_json``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

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

    # Named apart from the inherited ``_check``, which would otherwise be replaced, not extended.
    @model_validator(mode="after")
    def _check_tuning(self) -> Self:
        if self.max_backoff_s < self.base_backoff_s:
            raise ValueError("max_backoff_s must be >= base_backoff_s")
        return self
