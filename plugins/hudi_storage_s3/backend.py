"""The S3 backend: one ``s3://bucket/prefix`` root, addressed by validated keys.

Atomicity comes from S3 itself: a PUT (or ``CompleteMultipartUpload``) makes the whole object
visible at once; ``put_if_absent`` is ``PutObject`` with ``If-None-Match: *`` and
``compare_and_swap`` is ``PutObject`` with ``If-Match: <etag>``. Version tokens are ETags.

Conditional writes carry a random token in the object metadata (``x-amz-meta-hudi-write-token``).
When an attempt failed in a way that does not prove it had no effect (a 5xx, a lost connection) and
the retry then gets 412, the backend reads the object's metadata: if the token is ours, the earlier
attempt landed and the call succeeds instead of reporting a false conflict.
"""

from __future__ import annotations

import builtins
import contextlib
import datetime as dt
import functools
import logging
import math
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import IO, TYPE_CHECKING, Any, Final, TypeVar

import pyarrow as pa
from botocore.exceptions import BotoCoreError, ClientError

from hudi_framework.contracts.storage import FileInfo, IncompleteWrite, StorageBackend, Versioned
from hudi_framework.contracts.storage_output import PublishingOutput
from hudi_framework.contracts.storage_paths import safe_join, validate_key
from hudi_framework.errors import (
    InvalidStorageKeyError,
    PreconditionFailedError,
    StorageError,
    StorageNotFoundError,
)
from hudi_storage_s3.bucket import parse_s3_uri
from hudi_storage_s3.client import build_s3_client
from hudi_storage_s3.options import S3StorageOptions
from hudi_storage_s3.retry import (
    Attempts,
    RetryPolicy,
    error_code,
    http_status,
    is_not_found,
    is_precondition_failed,
)
from hudi_storage_s3.streams import RangedReader, UploadOnClose

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import CompletedPartTypeDef, ListObjectsV2OutputTypeDef

T = TypeVar("T")

_log = logging.getLogger(__name__)

#: Metadata key (sent as ``x-amz-meta-hudi-write-token``) identifying the writer of a conditional PUT.
WRITE_TOKEN_KEY: Final = "hudi-write-token"
#: Objects :meth:`S3Backend.read_many` fetches at once (botocore's default pool holds 10 connections).
PARALLEL_READS: Final = 8
#: S3 allows at most this many parts per multipart upload.
_MAX_PARTS: Final = 10_000


class S3StorageBackend(StorageBackend):
    """Objects under one ``s3://bucket/prefix``."""

    def __init__(
        self,
        root_uri: str,
        options: S3StorageOptions | None = None,
        *,
        client: S3Client | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        """Create a backend.

        Args:
            root_uri: ``s3://bucket/prefix`` or ``s3a://...``; validated before a client is built.
            options: Validated options; defaults apply when None.
            client: A ready client (shared by a provider, or a test double).
            retry: Overrides the policy built from ``options``.

        Raises:
            InvalidStorageKeyError: The URI is malformed or its prefix unsafe.
            InvalidBucketNameError: The bucket breaks AWS naming rules.
        """
        self._loc = parse_s3_uri(root_uri)
        self._options = options or S3StorageOptions()
        self._client: S3Client = client if client is not None else build_s3_client(self._options)
        self._retry = retry or RetryPolicy.from_options(self._options)
        self._bucket = self._loc.bucket
        self._root = self._loc.uri
        self._bucket_uri = f"{self._loc.scheme}://{self._bucket}"
        # Object-key prefix of every key of this backend ("" at the bucket root).
        self._key_prefix = f"{self._loc.prefix}/" if self._loc.prefix else ""

    def __repr__(self) -> str:
        return f"S3StorageBackend({self._root!r})"

    # ------------------------------------------------------------------ keys
    @property
    def root_uri(self) -> str:
        """The root URI, without trailing slash."""
        return self._root

    def uri(self, key: str) -> str:
        """Full ``s3://`` URI of ``key`` (``""`` gives the root)."""
        return self._full_uri(key, allow_root=True)

    def _full_uri(self, key: str, *, allow_root: bool = False) -> str:
        validate_key(key, allow_root=allow_root)
        full = safe_join(self._root, key)
        # A URI parser may read '?' or '#' as query or fragment and shorten the path, which would
        # alias two keys; insist that the join kept the key verbatim.
        if full != (f"{self._root}/{key}" if key else self._root):
            raise InvalidStorageKeyError(key, "does not map to exactly one S3 object key")
        return full

    def _object_key(self, key: str, *, allow_root: bool = False) -> str:
        full = self._full_uri(key, allow_root=allow_root)
        return full[len(self._bucket_uri) + 1 :] if full != self._bucket_uri else ""

    def _relative(self, object_key: str) -> str | None:
        """The key of ``object_key`` under the root, or None if no valid key names it."""
        if not object_key.startswith(self._key_prefix):
            return None
        rel = object_key[len(self._key_prefix) :]
        try:
            return validate_key(rel)
        except InvalidStorageKeyError:
            # Directory markers ("dir/") and keys written by other tools with "//" or "..":
            # no key of this API can address them, so listings leave them out.
            return None

    # ------------------------------------------------------------------ calling S3
    def _call(self, op: Callable[[], T], action: str, key: str, attempts: Attempts | None = None) -> T:
        """Run one request under the retry policy and map its failure to the storage errors."""
        try:
            return self._retry.call(op, name=f"{action} {self._root}/{key}", attempts=attempts)
        except ClientError as e:
            raise self._map_error(e, action, key) from e
        except BotoCoreError as e:
            raise StorageError(f"S3 {action} of {self._root}/{key} failed: {e}") from e

    def _map_error(self, e: ClientError, action: str, key: str) -> StorageError:
        if is_not_found(e):
            return StorageNotFoundError(key)
        if is_precondition_failed(e):
            return PreconditionFailedError(key)
        code = error_code(e)
        if code == "NoSuchBucket":
            return StorageError(f"S3 bucket {self._bucket!r} does not exist ({action} {key!r})")
        return StorageError(f"S3 {action} of {self._root}/{key} failed: {code or '?'} (HTTP {http_status(e)})")

    # ------------------------------------------------------------------ reads
    def read(self, key: str) -> bytes:
        """Read the whole object."""
        return self.read_versioned(key).data

    def read_many(self, keys: Sequence[str]) -> builtins.list[bytes]:
        """Read whole objects several at a time: each GET mostly waits on the network."""
        if len(keys) < 2:
            return [self.read(key) for key in keys]
        with ThreadPoolExecutor(min(len(keys), PARALLEL_READS), thread_name_prefix="hudi-s3-read") as pool:
            return list(pool.map(self.read, keys))

    def read_versioned(self, key: str) -> Versioned:
        """Read the object and its ETag."""
        object_key = self._object_key(key)

        def op() -> Versioned:
            resp = self._client.get_object(Bucket=self._bucket, Key=object_key)
            with closing(resp["Body"]) as body:
                data = body.read()
            return Versioned(data, resp["ETag"])

        return self._call(op, "GetObject", key)

    def _head(self, key: str, object_key: str) -> dict[str, Any] | None:
        """HeadObject's response, or None if the object does not exist."""
        try:
            resp = self._call(lambda: self._client.head_object(Bucket=self._bucket, Key=object_key), "HeadObject", key)
        except StorageNotFoundError:
            return None
        return dict(resp)

    def exists(self, key: str) -> bool:
        """Whether an object has exactly this key (a "directory" prefix does not count)."""
        return self._head(key, self._object_key(key)) is not None

    def info(self, key: str) -> FileInfo:
        """Size and last-modified time from HeadObject."""
        head = self._head(key, self._object_key(key))
        if head is None:
            raise StorageNotFoundError(key)
        return FileInfo(key, int(head["ContentLength"]), head["LastModified"].astimezone(dt.UTC))

    def open_input(self, key: str) -> pa.NativeFile:
        """Open the object for random access.

        One GET serves objects up to ``whole_object_read_max`` (read into memory). For a larger
        object the GET is abandoned after its headers and a :class:`RangedReader` pinned to the
        object's ETag fetches only the ranges pyarrow asks for.
        """
        object_key = self._object_key(key)

        def op() -> tuple[bytes | None, int, str]:
            resp = self._client.get_object(Bucket=self._bucket, Key=object_key)
            with closing(resp["Body"]) as body:
                size = int(resp["ContentLength"])
                data = body.read() if size <= self._options.whole_object_read_max else None
            return data, size, resp["ETag"]

        data, size, etag = self._call(op, "GetObject", key)
        if data is not None:
            return pa.BufferReader(data)

        def fetch(start: int, end: int) -> bytes:
            return self._read_range(key, object_key, etag, start, end)

        reader = RangedReader(fetch, size, self._options.range_block_size)
        return pa.PythonFile(reader, mode="r")

    def _read_range(self, key: str, object_key: str, etag: str, start: int, end: int) -> bytes:
        def op() -> bytes:
            resp = self._client.get_object(
                Bucket=self._bucket, Key=object_key, Range=f"bytes={start}-{end - 1}", IfMatch=etag
            )
            with closing(resp["Body"]) as body:
                return body.read()

        try:
            data = self._call(op, "GetObject(range)", key)
        except PreconditionFailedError:
            raise StorageError(f"{self._root}/{key} was replaced while being read") from None
        if len(data) != end - start:
            raise StorageError(f"short read of {self._root}/{key}: {len(data)} of {end - start} bytes")
        return data

    # ------------------------------------------------------------------ writes
    def write(self, key: str, data: bytes) -> None:
        """Create or replace the object with one PutObject."""
        object_key = self._object_key(key)
        self._call(lambda: self._client.put_object(Bucket=self._bucket, Key=object_key, Body=data), "PutObject", key)

    def put_if_absent(self, key: str, data: bytes) -> str:
        """``PutObject`` with ``If-None-Match: *``.

        Returns:
            The new object's ETag.

        Raises:
            PreconditionFailedError: Another writer's object has this key.
            StorageError: Retries ran out; whether the object was written is unknown.
        """
        object_key = self._object_key(key)
        token = uuid.uuid4().hex

        def op() -> str:
            resp = self._client.put_object(
                Bucket=self._bucket,
                Key=object_key,
                Body=data,
                IfNoneMatch="*",
                Metadata={WRITE_TOKEN_KEY: token},
            )
            return resp["ETag"]

        return self._conditional_put(op, key, object_key, token, "already exists")

    def compare_and_swap(self, key: str, data: bytes, expected_version: str) -> str:
        """``PutObject`` with ``If-Match: <expected_version>``.

        Returns:
            The new ETag.

        Raises:
            PreconditionFailedError: The object changed or vanished since ``expected_version``.
            StorageError: Retries ran out; whether the object was written is unknown.
        """
        object_key = self._object_key(key)
        token = uuid.uuid4().hex

        def op() -> str:
            resp = self._client.put_object(
                Bucket=self._bucket,
                Key=object_key,
                Body=data,
                IfMatch=expected_version,
                Metadata={WRITE_TOKEN_KEY: token},
            )
            return resp["ETag"]

        try:
            return self._conditional_put(op, key, object_key, token, "changed since read")
        except StorageNotFoundError:
            # If-Match on a missing object answers 404, not 412.
            raise PreconditionFailedError(key, "vanished before compare-and-swap") from None

    def _conditional_put(self, op: Callable[[], str], key: str, object_key: str, token: str, reason: str) -> str:
        attempts = Attempts()
        try:
            return self._call(op, "PutObject", key, attempts)
        except PreconditionFailedError:
            if attempts.ambiguous:
                etag = self._etag_if_written_by(key, object_key, token)
                if etag is not None:
                    _log.debug("%s/%s: an earlier attempt landed; conditional write succeeded", self._root, key)
                    return etag
            raise PreconditionFailedError(key, reason) from None

    def _etag_if_written_by(self, key: str, object_key: str, token: str) -> str | None:
        head = self._head(key, object_key)
        if head is None or head.get("Metadata", {}).get(WRITE_TOKEN_KEY) != token:
            return None
        return str(head["ETag"])

    def open_output(self, key: str) -> pa.NativeFile:
        """A stream that uploads on close: one PutObject, or a multipart upload from
        ``multipart_threshold`` bytes. Nothing is visible before close; a stream dropped without
        ``close()`` uploads nothing.
        """
        object_key = self._object_key(key)

        def upload(stream: IO[bytes], size: int) -> None:
            if size < self._options.multipart_threshold:
                data = stream.read()
                self._call(
                    lambda: self._client.put_object(Bucket=self._bucket, Key=object_key, Body=data),
                    "PutObject",
                    key,
                )
            else:
                self._multipart_upload(key, object_key, stream, size)

        return PublishingOutput(UploadOnClose(upload))

    def _multipart_upload(self, key: str, object_key: str, stream: IO[bytes], size: int) -> None:
        # Grow parts so a huge stream stays within S3's part-count limit.
        part_size = max(self._options.multipart_chunksize, math.ceil(size / _MAX_PARTS))
        token = uuid.uuid4().hex
        created = self._call(
            lambda: self._client.create_multipart_upload(
                Bucket=self._bucket, Key=object_key, Metadata={WRITE_TOKEN_KEY: token}
            ),
            "CreateMultipartUpload",
            key,
        )
        upload_id = created["UploadId"]
        try:
            parts: builtins.list[CompletedPartTypeDef] = []
            for number, chunk in enumerate(iter(functools.partial(stream.read, part_size), b""), start=1):
                upload_part = functools.partial(
                    self._client.upload_part,
                    Bucket=self._bucket,
                    Key=object_key,
                    UploadId=upload_id,
                    PartNumber=number,
                    Body=chunk,
                )
                resp = self._call(upload_part, "UploadPart", key)
                parts.append({"ETag": resp["ETag"], "PartNumber": number})
            attempts = Attempts()
            try:
                self._call(
                    lambda: self._client.complete_multipart_upload(
                        Bucket=self._bucket,
                        Key=object_key,
                        UploadId=upload_id,
                        MultipartUpload={"Parts": parts},
                    ),
                    "CompleteMultipartUpload",
                    key,
                    attempts,
                )
            except StorageNotFoundError:
                # NoSuchUpload after a lost response: the earlier attempt completed it.
                if not (attempts.ambiguous and self._etag_if_written_by(key, object_key, token)):
                    raise
        except BaseException:
            self._abort_multipart(key, object_key, upload_id)
            raise

    def _abort_multipart(self, key: str, object_key: str, upload_id: str) -> None:
        try:
            self._call(
                lambda: self._client.abort_multipart_upload(Bucket=self._bucket, Key=object_key, UploadId=upload_id),
                "AbortMultipartUpload",
                key,
            )
        except StorageError as e:
            # The original error matters more; a lifecycle rule cleans up what is left.
            _log.warning("could not abort multipart upload of %s/%s: %s", self._root, key, e)

    # ------------------------------------------------------------------ listing and deleting
    def _pages(self, prefix: str, key: str, *, delimiter: bool) -> Iterator[ListObjectsV2OutputTypeDef]:
        def fetch(token: str | None) -> ListObjectsV2OutputTypeDef:
            kwargs: dict[str, Any] = {"Bucket": self._bucket, "Prefix": prefix}
            if delimiter:
                kwargs["Delimiter"] = "/"
            if token:
                kwargs["ContinuationToken"] = token
            return self._client.list_objects_v2(**kwargs)

        token: str | None = None
        while True:
            page = self._call(functools.partial(fetch, token), "ListObjectsV2", key)
            yield page
            if not page.get("IsTruncated"):
                return
            token = page.get("NextContinuationToken")

    def _list_prefix(self, prefix: str) -> str:
        base = self._object_key(prefix, allow_root=True)
        # The trailing slash keeps "d" from matching "d2/...".
        return f"{base}/" if base else ""

    def list(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[FileInfo]:
        """ListObjectsV2 under ``prefix``; with ``Delimiter="/"`` unless ``recursive``."""
        out: builtins.list[FileInfo] = []
        for page in self._pages(self._list_prefix(prefix), prefix, delimiter=not recursive):
            for obj in page.get("Contents", []):
                rel = self._relative(obj["Key"])
                if rel is not None:
                    out.append(FileInfo(rel, int(obj["Size"]), obj["LastModified"].astimezone(dt.UTC)))
        return out

    def list_dirs(self, prefix: str = "") -> builtins.list[str]:
        """The CommonPrefixes directly under ``prefix``, as keys."""
        out: builtins.list[str] = []
        for page in self._pages(self._list_prefix(prefix), prefix, delimiter=True):
            for common in page.get("CommonPrefixes", []):
                # Strip exactly one "/": "d//" stays invalid and is skipped.
                rel = self._relative(common["Prefix"][:-1])
                if rel is not None:
                    out.append(rel)
        return out

    def list_incomplete(self, prefix: str = "", *, recursive: bool = False) -> builtins.list[IncompleteWrite]:
        """Multipart uploads under ``prefix`` started and never completed or aborted (ListMultipartUploads)."""
        list_prefix = self._list_prefix(prefix)
        out: builtins.list[IncompleteWrite] = []
        markers: dict[str, str] = {}
        while True:
            kwargs: dict[str, Any] = {"Bucket": self._bucket, "Prefix": list_prefix, **markers}
            if not recursive:
                kwargs["Delimiter"] = "/"
            page = self._call(
                functools.partial(self._client.list_multipart_uploads, **kwargs), "ListMultipartUploads", prefix
            )
            for upload in page.get("Uploads", []):
                rel = self._relative(upload["Key"])
                # Checked here too: not every S3-compatible store honours a delimiter on this call.
                if rel is not None and (recursive or rel.rpartition("/")[0] == prefix):
                    started = upload["Initiated"].astimezone(dt.UTC)
                    out.append(IncompleteWrite(rel, started, upload["UploadId"]))
            if not page.get("IsTruncated"):
                return out
            markers = {"KeyMarker": page["NextKeyMarker"], "UploadIdMarker": page["NextUploadIdMarker"]}

    def discard_incomplete(self, write: IncompleteWrite) -> None:
        """AbortMultipartUpload (an upload already gone is fine)."""
        object_key = self._object_key(write.target)
        abort = functools.partial(
            self._client.abort_multipart_upload, Bucket=self._bucket, Key=object_key, UploadId=write.handle
        )
        with contextlib.suppress(StorageNotFoundError):
            self._call(abort, "AbortMultipartUpload", write.target)

    def delete(self, key: str, *, missing_ok: bool = True) -> None:
        """DeleteObject (idempotent in S3); ``missing_ok=False`` checks existence first."""
        object_key = self._object_key(key)
        if not missing_ok and self._head(key, object_key) is None:
            raise StorageNotFoundError(key)
        self._call(lambda: self._client.delete_object(Bucket=self._bucket, Key=object_key), "DeleteObject", key)
