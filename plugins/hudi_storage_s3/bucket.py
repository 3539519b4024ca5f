"""S3 bucket-name rules and ``s3://bucket/prefix`` URI parsing.

Both run in :meth:`S3StorageProvider.open` before any client exists, so a malformed or hostile URI
never reaches the network. The rules are AWS's rules for general purpose buckets
(https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html). Legacy
``us-east-1`` names with capitals or underscores, allowed before March 2018, are rejected on purpose:
they cannot be addressed virtual-host style and no table should be created in one.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Final

from hudi_framework.contracts.storage_paths import uri_scheme, validate_key
from hudi_framework.errors import InvalidBucketNameError, InvalidStorageKeyError

_ALLOWED: Final = re.compile(r"^[a-z0-9.-]+$")

#: Prefixes AWS reserves (punycode labels, S3 access points and internal names, documentation buckets).
RESERVED_PREFIXES: Final = ("xn--", "sthree-", "amzn-s3-demo-")

#: Suffixes AWS reserves for access-point aliases, Object Lambda, Multi-Region Access Points,
#: directory buckets and table buckets.
RESERVED_SUFFIXES: Final = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")


def validate_bucket_name(bucket: str) -> str:
    """Return ``bucket`` unchanged if it follows the AWS naming rules.

    Args:
        bucket: A bucket name, without scheme or slashes.

    Returns:
        The same name.

    Raises:
        InvalidBucketNameError: Naming the rule the bucket breaks.
    """
    if not 3 <= len(bucket) <= 63:
        raise InvalidBucketNameError(bucket, "must be 3 to 63 characters long")
    if not _ALLOWED.match(bucket):
        raise InvalidBucketNameError(bucket, "only lowercase letters, digits, '.' and '-' are allowed")
    if not (bucket[0].isalnum() and bucket[-1].isalnum()):
        raise InvalidBucketNameError(bucket, "must start and end with a letter or digit")
    if ".." in bucket:
        raise InvalidBucketNameError(bucket, "must not contain two adjacent periods")
    # Every dot-separated label must be a valid DNS label, or virtual-host addressing (and TLS
    # certificates for *.s3.amazonaws.com) break for the bucket.
    if ".-" in bucket or "-." in bucket:
        raise InvalidBucketNameError(bucket, "a period must not be next to a hyphen")
    if _is_ip_address(bucket):
        raise InvalidBucketNameError(bucket, "must not be formatted as an IP address")
    for prefix in RESERVED_PREFIXES:
        if bucket.startswith(prefix):
            raise InvalidBucketNameError(bucket, f"the prefix {prefix!r} is reserved")
    for suffix in RESERVED_SUFFIXES:
        if bucket.endswith(suffix):
            raise InvalidBucketNameError(bucket, f"the suffix {suffix!r} is reserved")
    return bucket


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        # AWS also refuses shapes like 192.168.5.4 with leading zeros, which ipaddress rejects.
        return re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", name) is not None
    return True


@dataclass(frozen=True, slots=True)
class S3Location:
    """A parsed ``s3://bucket/prefix`` root.

    Attributes:
        scheme: ``s3`` or ``s3a``, as written (lower case).
        bucket: The validated bucket name.
        prefix: The validated key prefix without leading or trailing slash (``""`` for the bucket root).
    """

    scheme: str
    bucket: str
    prefix: str

    @property
    def uri(self) -> str:
        """The normalised root URI, without a trailing slash."""
        base = f"{self.scheme}://{self.bucket}"
        return f"{base}/{self.prefix}" if self.prefix else base


def parse_s3_uri(uri: str, schemes: tuple[str, ...] = ("s3", "s3a")) -> S3Location:
    """Split and validate an S3 root URI; performs no I/O.

    Args:
        uri: For example ``s3://my-bucket/warehouse/orders`` (a trailing slash is allowed).
        schemes: Accepted schemes.

    Returns:
        The validated location.

    Raises:
        InvalidStorageKeyError: Wrong scheme, or the prefix has unsafe segments.
        InvalidBucketNameError: The bucket breaks AWS naming rules.
    """
    scheme = uri_scheme(uri)
    if scheme not in schemes:
        raise InvalidStorageKeyError(uri, f"expected a URI with scheme {' or '.join(schemes)}")
    rest = uri.split("://", 1)[1]
    bucket, _, prefix = rest.partition("/")
    validate_bucket_name(bucket)
    # One trailing slash means "the directory"; anything else must be a safe key.
    if prefix.endswith("/"):
        prefix = prefix[:-1]
    try:
        validate_key(prefix, allow_root=True)
    except InvalidStorageKeyError as e:
        raise InvalidStorageKeyError(uri, f"unsafe prefix: {e.reason}") from None
    if "?" in prefix or "#" in prefix:
        # URI parsers would read these as query or fragment and silently shorten the root.
        raise InvalidStorageKeyError(uri, "'?' and '#' are not allowed in a root URI")
    return S3Location(scheme, bucket, prefix)
