"""AWS bucket-name rules and S3 root-URI parsing."""

from __future__ import annotations

import pytest

from hudi_framework.errors import InvalidBucketNameError, InvalidStorageKeyError
from hudi_storage_s3 import S3Location, parse_s3_uri, validate_bucket_name


@pytest.mark.parametrize(
    "name",
    [
        "abc",
        "my-bucket",
        "my.bucket.example",
        "a1-b2.c3",
        "1bucket",
        "x" * 63,
        "xn-single-dash",
        "s3alias-first",
    ],
)
def test_valid_bucket_names(name: str) -> None:
    assert validate_bucket_name(name) == name


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("ab", "3 to 63"),
        ("x" * 64, "3 to 63"),
        ("", "3 to 63"),
        ("My-Bucket", "lowercase"),
        ("my_bucket", "lowercase"),
        ("my bucket", "lowercase"),
        ("bucket/../x", "lowercase"),
        ("bucket\x00x", "lowercase"),
        ("-bucket", "start and end"),
        ("bucket-", "start and end"),
        (".bucket", "start and end"),
        ("bucket.", "start and end"),
        ("my..bucket", "adjacent periods"),
        ("my.-bucket", "next to a hyphen"),
        ("my-.bucket", "next to a hyphen"),
        ("192.168.5.4", "IP address"),
        ("10.0.0.001", "IP address"),
        ("xn--bucket", "xn--"),
        ("sthree-bucket", "sthree-"),
        ("amzn-s3-demo-bucket", "amzn-s3-demo-"),
        ("bucket-s3alias", "-s3alias"),
        ("bucket--ol-s3", "--ol-s3"),
        ("bucket.mrap", ".mrap"),
        ("bucket--x-s3", "--x-s3"),
        ("bucket--table-s3", "--table-s3"),
    ],
)
def test_invalid_bucket_names_name_the_rule(name: str, rule: str) -> None:
    with pytest.raises(InvalidBucketNameError, match=rule) as info:
        validate_bucket_name(name)
    assert info.value.bucket == name
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("s3://bucket", S3Location("s3", "bucket", "")),
        ("s3://bucket/", S3Location("s3", "bucket", "")),
        ("s3://bucket/warehouse/t1", S3Location("s3", "bucket", "warehouse/t1")),
        ("s3a://bucket/warehouse/t1/", S3Location("s3a", "bucket", "warehouse/t1")),
        ("S3://bucket/x", S3Location("s3", "bucket", "x")),
    ],
)
def test_parse_s3_uri(uri: str, expected: S3Location) -> None:
    assert parse_s3_uri(uri) == expected
    assert parse_s3_uri(expected.uri) == expected


@pytest.mark.parametrize(
    "uri",
    [
        "gs://bucket/x",
        "/local/path",
        "s3://bucket/a/../b",
        "s3://bucket//a",
        "s3://bucket/a//",
        "s3://bucket/./a",
        "s3://bucket/a\x00",
        "s3://bucket/a\nb",
        "s3://bucket/a?versionId=1",
        "s3://bucket/a#frag",
    ],
)
def test_parse_s3_uri_rejects_unsafe_roots(uri: str) -> None:
    with pytest.raises(InvalidStorageKeyError):
        parse_s3_uri(uri)


@pytest.mark.parametrize("uri", ["s3://Bucket/x", "s3://b/x", "s3://127.0.0.1/x", "s3:///x", "s3://bucket:9000/x"])
def test_parse_s3_uri_rejects_bad_buckets(uri: str) -> None:
    with pytest.raises(InvalidBucketNameError):
        parse_s3_uri(uri)
