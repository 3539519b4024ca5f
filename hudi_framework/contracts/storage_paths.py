"""Key validation and the one safe join every storage path goes through.

A *key* is a ``/``-separated path relative to a backend root. Keys never contain empty, ``.`` or
``..`` segments, NUL or other control characters, or backslashes, so joining a valid key to a root
cannot escape it; :func:`safe_join` re-checks that anyway.
"""

from __future__ import annotations

import posixpath
import re

from hudi_framework.errors import InvalidStorageKeyError

__all__ = ["join_key", "relative_key", "safe_join", "uri_scheme", "validate_key"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def validate_key(key: str, *, allow_root: bool = False) -> str:
    """Return ``key`` unchanged if it is a safe relative key.

    Args:
        key: The key to check.
        allow_root: Accept ``""`` as the root itself (for listings).

    Raises:
        InvalidStorageKeyError: Naming the key and the rule it breaks.
    """
    if not isinstance(key, str):
        raise InvalidStorageKeyError(repr(key), "keys are strings")
    if key == "":
        if allow_root:
            return key
        raise InvalidStorageKeyError(key, "empty key")
    if _CONTROL.search(key):
        raise InvalidStorageKeyError(key, "NUL or control character")
    if "\\" in key:
        raise InvalidStorageKeyError(key, "backslash")
    if key.startswith("/"):
        raise InvalidStorageKeyError(key, "absolute path")
    for segment in key.split("/"):
        if segment == "":
            raise InvalidStorageKeyError(key, "empty path segment")
        if segment in (".", ".."):
            raise InvalidStorageKeyError(key, f"{segment!r} segment")
    return key


def join_key(*parts: str) -> str:
    """Join key parts with ``/``, skipping empty parts, and validate the result."""
    key = "/".join(p.strip("/") for p in parts if p and p.strip("/"))
    return validate_key(key, allow_root=True)


def safe_join(root: str, key: str) -> str:
    """Join a validated key to a root path or URI and prove the result stays under the root.

    Args:
        root: A local directory path or a URI such as ``s3://bucket/prefix`` (no trailing slash needed).
        key: A relative key; ``""`` yields the root.

    Raises:
        InvalidStorageKeyError: The key is unsafe or the result would leave the root.
    """
    validate_key(key, allow_root=True)
    base = root.rstrip("/") or "/"
    if not key:
        return base
    joined = f"{base}/{key}" if base != "/" else f"/{key}"
    # Normalising must be a no-op for a valid key; anything else means the key tried to move.
    scheme, netloc, path = _split(joined)
    _, _, base_path = _split(base)
    norm = posixpath.normpath(path) if path else path
    base_norm = posixpath.normpath(base_path) if base_path else ""
    under = norm == base_norm or norm.startswith(base_norm.rstrip("/") + "/") or base_norm in ("", "/")
    if norm != path or not under:
        raise InvalidStorageKeyError(key, f"escapes the root {root!r}")
    return joined if not scheme else f"{scheme}://{netloc}{path}"


def relative_key(root: str, full: str) -> str:
    """The key of ``full`` under ``root`` (inverse of :func:`safe_join`).

    Raises:
        InvalidStorageKeyError: ``full`` is not under ``root``.
    """
    base = root.rstrip("/")
    if full == base:
        return ""
    if not full.startswith(base + "/"):
        raise InvalidStorageKeyError(full, f"not under the root {root!r}")
    return validate_key(full[len(base) + 1 :])


def _split(uri: str) -> tuple[str, str, str]:
    # Split by hand: urlsplit would treat "?" and "#" in a key as query and fragment and drop them,
    # mapping two different keys to one object.
    if "://" not in uri:
        return "", "", uri
    scheme, rest = uri.split("://", 1)
    netloc, slash, path = rest.partition("/")
    return scheme, netloc, slash + path


def uri_scheme(uri: str) -> str:
    """The lower-case scheme of a URI, ``""`` for plain paths."""
    if "://" not in uri:
        return ""
    return uri.split("://", 1)[0].lower()
