"""Storage plugin ``s3``: ``s3://`` and ``s3a://`` URIs through boto3.

See ``docs/storage.md`` for URIs, options, atomicity guarantees and retries.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.storage import StorageProvider
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_storage_s3.backend import S3StorageBackend
from hudi_storage_s3.bucket import S3Location, parse_s3_uri, validate_bucket_name
from hudi_storage_s3.client import build_s3_client
from hudi_storage_s3.options import S3StorageOptions
from hudi_storage_s3.provider import S3StorageProvider
from hudi_storage_s3.retry import RetryPolicy, is_retryable

__all__ = [
    "RetryPolicy",
    "S3Location",
    "S3StorageBackend",
    "S3StorageOptions",
    "S3StorageProvider",
    "build_s3_client",
    "hudi_storage_backends",
    "is_retryable",
    "parse_s3_uri",
    "validate_bucket_name",
]


@hookimpl
def hudi_storage_backends() -> Sequence[ComponentSpec[StorageProvider]]:
    """Register the ``s3`` backend for ``s3://`` and ``s3a://`` URIs."""
    return [
        ComponentSpec(
            "s3",
            factory=S3StorageProvider,
            options_model=S3StorageOptions,
            description="Amazon S3 and S3-compatible stores (s3:// and s3a:// URIs, boto3)",
        )
    ]
