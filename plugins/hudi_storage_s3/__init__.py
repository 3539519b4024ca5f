"""Storage plugin ``s3``: ``s3://`` and ``s3a://`` URIs through boto3.

See ``docs/storage.md`` for URIs, options, atomicity guarantees and retries.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.storage import StorageProvider
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "RetryPolicy": "hudi_storage_s3.retry",
    "S3Location": "hudi_storage_s3.bucket",
    "S3StorageBackend": "hudi_storage_s3.backend",
    "S3StorageOptions": "hudi_storage_s3.options",
    "S3StorageProvider": "hudi_storage_s3.provider",
    "build_s3_client": "hudi_storage_s3.client",
    "is_retryable": "hudi_storage_s3.retry",
    "parse_s3_uri": "hudi_storage_s3.bucket",
    "validate_bucket_name": "hudi_storage_s3.bucket",
}
__all__ = [*_EXPORTS, "hudi_storage_backends"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_storage_backends() -> Sequence[ComponentSpec[StorageProvider]]:
    """Register the ``s3`` backend for ``s3://`` and ``s3a://`` URIs."""
    return [
        ComponentSpec(
            "s3",
            factory="hudi_storage_s3.provider:S3StorageProvider",
            options_model="hudi_storage_s3.options:S3StorageOptions",
            description="Amazon S3 and S3-compatible stores (s3:// and s3a:// URIs, boto3)",
            settings_section="s3",
        )
    ]
