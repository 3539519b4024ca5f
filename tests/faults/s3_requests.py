"""Which credentials signed each request the moto server received, by bucket.

The moto server runs in the test process, so this records the requests of every client: the test's
own, a ``hudi-fw`` subprocess's and Spark's Python workers'. A request signed with another key id
than the one configured (or not signed at all) shows that a setting was lost on the way.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from unittest import mock
from urllib.parse import urlsplit

#: Sent nowhere: requests for any endpoint but the loopback moto server fail at once through it.
DEAD_PROXY: Final = "http://127.0.0.1:9"
_CREDENTIAL = re.compile(r"Credential=([^/,\s]+)/")


@dataclass
class RequestLog:
    """Requests seen by moto's S3 responder: (bucket, HTTP method, signing key id or None)."""

    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, bucket: str, method: str, key_id: str | None) -> None:
        with self._lock:
            self.requests.append((bucket, method, key_id))

    def key_ids(self, bucket: str) -> set[str | None]:
        """Key ids that signed requests to ``bucket`` (None for an unsigned request)."""
        with self._lock:
            return {key for name, _, key in self.requests if name == bucket}

    def count(self, bucket: str) -> int:
        with self._lock:
            return sum(1 for name, _, _ in self.requests if name == bucket)


@contextmanager
def request_log() -> Iterator[RequestLog]:
    """Record every S3 bucket- and object-level request moto handles while the context is active."""
    from moto.s3.responses import S3Response

    log = RequestLog()

    def recording(original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def handler(self: S3Response, request: Any, full_url: str, headers: Any) -> Any:
            found = _CREDENTIAL.search(str(request.headers.get("Authorization") or ""))
            bucket = urlsplit(full_url).path.lstrip("/").split("/", 1)[0]
            log.add(bucket, str(request.method), found.group(1) if found else None)
            return original(self, request, full_url, headers)

        return handler

    with (
        mock.patch.object(S3Response, "key_response", recording(S3Response.key_response)),
        mock.patch.object(S3Response, "bucket_response", recording(S3Response.bucket_response)),
    ):
        yield log


def isolated_aws_env(base: Mapping[str, str]) -> dict[str, str]:
    """``base`` without any ``AWS_*`` or ``HUDI_*`` variable, with no AWS config or credentials
    file, and with every HTTP(S) request except to 127.0.0.1 sent to a dead proxy (so a request for
    AWS's own endpoint, or instance metadata, fails at once instead of leaving the machine)."""
    env = {k: v for k, v in base.items() if not k.upper().startswith(("AWS_", "HUDI_"))}
    for name in ("http_proxy", "https_proxy", "no_proxy", "all_proxy"):
        env.pop(name, None)
        env.pop(name.upper(), None)
    env.update(
        {
            "AWS_CONFIG_FILE": "/nonexistent/hudi-framework-tests/aws-config",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/hudi-framework-tests/aws-credentials",
            "HTTP_PROXY": DEAD_PROXY,
            "HTTPS_PROXY": DEAD_PROXY,
            "http_proxy": DEAD_PROXY,
            "https_proxy": DEAD_PROXY,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
    )
    return env
