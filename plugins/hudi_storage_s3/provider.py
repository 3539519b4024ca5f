"""The ``s3`` storage provider: validates a root URI, then opens a backend on a shared client."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from hudi_framework.contracts.storage import StorageBackend, StorageProvider
from hudi_storage_s3.backend import S3StorageBackend
from hudi_storage_s3.bucket import parse_s3_uri
from hudi_storage_s3.client import build_s3_client
from hudi_storage_s3.options import S3StorageOptions

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client


class S3StorageProvider(StorageProvider):
    """Opens :class:`S3StorageBackend` for ``s3://`` and ``s3a://`` URIs.

    One boto3 client (thread-safe) is shared by every backend the provider opens; it is created on
    the first :meth:`open` of a valid URI, never before.
    """

    schemes = ("s3", "s3a")

    def __init__(
        self,
        options: S3StorageOptions | None = None,
        *,
        client_factory: Callable[[S3StorageOptions], S3Client] = build_s3_client,
    ) -> None:
        """Create a provider.

        Args:
            options: Validated options; defaults apply when None.
            client_factory: Builds the client; tests inject one.
        """
        self._options = options or S3StorageOptions()
        self._client_factory = client_factory
        self._client: S3Client | None = None
        self._lock = threading.Lock()

    def open(self, root_uri: str) -> StorageBackend:
        """Open a backend rooted at ``root_uri``.

        Raises:
            InvalidStorageKeyError: Wrong scheme or an unsafe prefix (before any client exists).
            InvalidBucketNameError: The bucket breaks AWS naming rules (before any client exists).
        """
        location = parse_s3_uri(root_uri, self.schemes)
        with self._lock:
            if self._client is None:
                self._client = self._client_factory(self._options)
            client = self._client
        return S3StorageBackend(location.uri, self._options, client=client)

    def __repr__(self) -> str:
        endpoint = self._options.endpoint_url or "aws"
        return f"S3StorageProvider(endpoint={endpoint!r}, region={self._options.region!r})"
