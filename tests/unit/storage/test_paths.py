"""Key validation and the safe join: traversal and control characters never reach storage."""

from __future__ import annotations

import pytest

from hudi_framework.contracts.storage_paths import join_key, relative_key, safe_join, uri_scheme, validate_key
from hudi_framework.errors import InvalidStorageKeyError
from hudi_framework.testing import UNSAFE_KEYS

ROOTS = ["/data/table", "s3://bucket/warehouse/table", "s3a://bucket", "memory://t/x"]


@pytest.mark.parametrize("key", ["a", "a/b/c.parquet", ".hoodie/hoodie.properties", "a..b", "...", "..a", "ü €"])
def test_valid_keys_pass_unchanged(key: str) -> None:
    assert validate_key(key) == key


@pytest.mark.parametrize("key", UNSAFE_KEYS)
def test_unsafe_keys_are_rejected(key: str) -> None:
    with pytest.raises(InvalidStorageKeyError) as info:
        validate_key(key)
    assert info.value.key in (key, repr(key))
    assert info.value.reason


@pytest.mark.parametrize("char", [chr(c) for c in [*range(0x20), 0x7F]])
def test_every_control_character_is_rejected(char: str) -> None:
    with pytest.raises(InvalidStorageKeyError, match="control character"):
        validate_key(f"a{char}b")


def test_root_is_only_valid_where_allowed() -> None:
    assert validate_key("", allow_root=True) == ""
    with pytest.raises(InvalidStorageKeyError):
        validate_key("")


def test_non_string_keys_are_rejected() -> None:
    with pytest.raises(InvalidStorageKeyError):
        validate_key(b"a")  # type: ignore[arg-type]


@pytest.mark.parametrize("root", ROOTS)
@pytest.mark.parametrize("key", [k for k in UNSAFE_KEYS if k])
def test_safe_join_rejects_unsafe_keys(root: str, key: str) -> None:
    with pytest.raises(InvalidStorageKeyError):
        safe_join(root, key)


@pytest.mark.parametrize("root", ROOTS)
def test_safe_join_stays_under_root_and_inverts(root: str) -> None:
    for key in ["a", "x/y/z.parquet", "%2e%2e/x", "a b"]:
        full = safe_join(root, key)
        assert full == f"{root}/{key}"
        assert relative_key(root, full) == key
    assert safe_join(root, "") == root
    assert safe_join(root + "/", "k") == f"{root}/k"


@pytest.mark.parametrize("key", ["a?b", "a#b"])
def test_safe_join_keeps_query_and_fragment_characters_in_uris(key: str) -> None:
    assert safe_join("s3://bucket/p", key) == f"s3://bucket/p/{key}"


def test_relative_key_rejects_paths_outside_root() -> None:
    with pytest.raises(InvalidStorageKeyError):
        relative_key("/data/table", "/data/table2/x")
    with pytest.raises(InvalidStorageKeyError):
        relative_key("/data/table", "/data/table/../x")
    assert relative_key("/data/table", "/data/table") == ""


def test_join_key_skips_empty_parts_and_validates() -> None:
    assert join_key("a", "", "b/", "/c") == "a/b/c"
    with pytest.raises(InvalidStorageKeyError):
        join_key("a", "..", "b")


@pytest.mark.parametrize(
    ("uri", "scheme"), [("s3://b/k", "s3"), ("S3A://b", "s3a"), ("/tmp/x", ""), ("file:///tmp", "file")]
)
def test_uri_scheme(uri: str, scheme: str) -> None:
    assert uri_scheme(uri) == scheme
