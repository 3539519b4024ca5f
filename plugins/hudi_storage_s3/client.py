"""Building the boto3 S3 client from :class:`S3StorageOptions`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hudi_framework import S3CredentialsSource
from hudi_storage_s3.options import S3StorageOptions

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


def build_s3_client(options: S3StorageOptions) -> S3Client:
    """A new S3 client configured by ``options``.

    The client comes from a fresh :class:`boto3.session.Session`, never boto3's module-level
    default session: that one is global mutable state that other code (and tests) reconfigure.
    With ``credentials_provider`` set, the session finds credentials only through the sources it
    names (:func:`~hudi_storage_s3.credentials.install_credential_chain`); ``anonymous`` sends
    unsigned requests.

    botocore's retries are off (``total_max_attempts=1``; note that the legacy ``max_attempts`` key
    counts *retries*, so ``max_attempts=1`` would still retry once). The backend's
    :class:`~hudi_storage_s3.retry.RetryPolicy` is the only retry loop, so conditional writes
    observe every failed attempt.
    """
    # Imported here: boto3 and botocore cost ~0.2 s CPU, paid only when a client is built, not
    # whenever the entry point loads.
    import boto3.session
    import botocore.session
    from botocore import UNSIGNED
    from botocore.config import Config

    from hudi_storage_s3.credentials import install_credential_chain

    extra: dict[str, Any] = {}
    if not options.credentials_provider:
        session = boto3.session.Session(
            aws_access_key_id=options.access_key_id.get_secret_value() if options.access_key_id else None,
            aws_secret_access_key=options.secret_access_key.get_secret_value() if options.secret_access_key else None,
            aws_session_token=options.session_token.get_secret_value() if options.session_token else None,
            region_name=options.region,
        )
    else:
        core = botocore.session.Session()
        install_credential_chain(core, options)
        session = boto3.session.Session(botocore_session=core, region_name=options.region)
        if options.credentials_provider == (S3CredentialsSource.ANONYMOUS,):
            extra["signature_version"] = UNSIGNED
    config = Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        connect_timeout=options.connect_timeout_s,
        read_timeout=options.read_timeout_s,
        max_pool_connections=options.max_pool_connections,
        s3={"addressing_style": options.addressing_style},
        **extra,
    )
    return session.client("s3", endpoint_url=options.endpoint_url, config=config)
