"""Closed sets of this project's own configuration values (Apache Hudi's are in :mod:`hudi_framework.vocabulary`).

They parse like Hudi's option values (case-insensitively, ``-`` for ``_``), so every setting reads alike.
"""

from __future__ import annotations

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = ["S3CredentialsSource", "WriteEngine"]


class WriteEngine(HudiEnum):
    """Where per-file-group write tasks run: on Spark executors or in this process."""

    SPARK = "spark"
    LOCAL = "local"


class S3CredentialsSource(HudiEnum):
    """Where the S3 client finds credentials (``storage.s3.credentials_provider``); Hadoop S3A's
    provider classes map onto these (:mod:`hudi_framework.config.s3`)."""

    STATIC = "static"
    """``storage.s3`` access key id and secret (and session token, if set)."""
    TEMPORARY = "temporary"
    """Like ``static``, but the session token is required."""
    ENVIRONMENT = "environment"
    """``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN`` where the request is made."""
    INSTANCE = "instance"
    """Container credentials (ECS, EKS pod identity), then EC2 instance metadata."""
    WEB_IDENTITY = "web-identity"
    """``AWS_WEB_IDENTITY_TOKEN_FILE`` and ``AWS_ROLE_ARN`` (EKS service accounts)."""
    DEFAULT = "default"
    """boto3's whole default chain (environment, shared files, web identity, container, instance)."""
    ANONYMOUS = "anonymous"
    """Unsigned requests (public buckets); never combined with another source."""
