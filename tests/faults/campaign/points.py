"""The in-child hook: every storage call of the process is a numbered point.

Installed only in a campaign child process (never in product code), it wraps:

* each method of the local backend (``read``, ``write``, ``list``... on entry), plus ``os.replace``
  and ``os.link`` (before; and after ``os.link``, whose temporary file is removed only then), so
  a kill also lands between a backend's temporary file and its publication;
* ``botocore.client.BaseClient._make_api_call`` (before each request, and for requests that change
  S3 also after S3 applied them, before the response reaches the caller).

Then, by mode: ``record`` keeps every point's label (the dry run); ``kill_at=N`` sends the N-th
label to the parent and SIGKILLs the process there; ``fault_rate`` > 0 fails each botocore call
with that probability, drawn from ``fault_seed``: an error before S3 sees it, the same error after
S3 applied it, or a lost response after S3 applied it (:func:`tests.faults.s3_faults.inject`).

Write tasks and readers size their thread pools with ``os.cpu_count()``; the child pins it to 1 so
the call sequence, and so a seed's kill point, is the same in every run.
"""

from __future__ import annotations

import functools
import os
import random
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Final

import botocore.client

from hudi_storage_local.backend import LocalStorageBackend
from tests.faults.s3_faults import call_key, inject

#: Local backend methods counted as points, and those that change storage.
_LOCAL_METHODS: Final = (
    "read", "read_versioned", "write", "put_if_absent", "compare_and_swap", "open_input", "open_output", "list",
    "list_dirs", "delete", "exists", "info",
)  # fmt: skip
_LOCAL_MUTATING: Final = frozenset({"write", "put_if_absent", "compare_and_swap", "open_output", "delete"})
#: S3 requests that change storage (they also get a point after S3 applied them).
S3_MUTATING: Final = frozenset(
    {
        "PutObject", "DeleteObject", "DeleteObjects", "CopyObject", "CreateMultipartUpload", "UploadPart",
        "CompleteMultipartUpload", "AbortMultipartUpload",
    }
)  # fmt: skip
#: S3 fault kinds: (label, code, HTTP status, after apply, lost response).
_BEFORE_ERRORS: Final = (("SlowDown", 503), ("InternalError", 500), ("ServiceUnavailable", 503), ("Throttling", 429))
FAULT_KINDS: Final = ("error before apply", "error after apply", "lost response")


@dataclass
class Points:
    """The numbered storage calls of this process (see the module docstring)."""

    conn: Connection
    strip: str = ""
    record: bool = False
    kill_at: int | None = None
    fault_rate: float = 0.0
    fault_seed: int = 0
    count: int = 0
    labels: list[tuple[str, bool]] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    _rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.fault_seed)

    def hit(self, label: str, mutating: bool) -> None:
        """One point: record it, or die at it."""
        self.count += 1
        if self.record:
            self.labels.append((label, mutating))
        if self.kill_at == self.count:
            self.conn.send(("killed", self.count, label))
            os.kill(os.getpid(), signal.SIGKILL)

    def _short(self, path: Any) -> str:
        text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)
        return text[len(self.strip) :].lstrip("/") if self.strip and text.startswith(self.strip) else text

    def install(self) -> None:
        """Wrap the local backend, ``os.replace``/``os.link`` and botocore in this process."""
        for name in _LOCAL_METHODS:
            setattr(LocalStorageBackend, name, self._local_method(name, getattr(LocalStorageBackend, name)))
        real_replace, real_link = os.replace, os.link

        def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            self.hit(f"os.replace -> {self._short(dst)}", True)
            real_replace(src, dst, *args, **kwargs)

        def link(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
            self.hit(f"os.link -> {self._short(dst)}", True)
            real_link(src, dst, *args, **kwargs)
            self.hit(f"os.link -> {self._short(dst)} (linked, temporary file not yet removed)", True)

        os.replace = replace
        os.link = link
        original = botocore.client.BaseClient._make_api_call  # type: ignore[attr-defined]

        def api_call(client: Any, operation: str, params: dict[str, Any]) -> Any:
            return self._s3_call(original, client, operation, params)

        botocore.client.BaseClient._make_api_call = api_call  # type: ignore[attr-defined]

    def _local_method(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        mutating = name in _LOCAL_MUTATING

        @functools.wraps(method)
        def wrapper(backend: LocalStorageBackend, *args: Any, **kwargs: Any) -> Any:
            key = args[0] if args else kwargs.get("key", kwargs.get("prefix", ""))
            self.hit(f"{name} {key}", mutating)
            return method(backend, *args, **kwargs)

        return wrapper

    def _s3_call(self, original: Callable[..., Any], client: Any, operation: str, params: dict[str, Any]) -> Any:
        label = f"{operation} {self._short(call_key(params))}"
        mutating = operation in S3_MUTATING
        self.hit(label, mutating)
        if self.fault_rate and self._rng.random() < self.fault_rate:
            kind = self._rng.choice(FAULT_KINDS)
            code, status = self._rng.choice(_BEFORE_ERRORS) if kind == FAULT_KINDS[0] else ("InternalError", 500)
            self.injected.append(
                f"call {self.count}: {label}: {kind}" + ("" if kind == FAULT_KINDS[2] else f" {status} {code}")
            )
            inject(
                original, client, operation, params, code=code, status=status,
                after=kind == FAULT_KINDS[1], lost=kind == FAULT_KINDS[2],
            )  # fmt: skip
        result = original(client, operation, params)
        if mutating:
            self.hit(f"{label} (applied, response not yet returned)", True)
        return result
