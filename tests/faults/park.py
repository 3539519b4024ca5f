"""Park points for the kill tests: where a process under test stops, tells the test, and waits to be
SIGKILLed. Installed by patching (test code only; the product has no hooks).

A park point is a string, usually passed in the environment variable ``HUDI_FAULT_PARK``::

    <kind>:<pattern>[@<n>]

``n`` (default 1) parks at the n-th match. Kinds:

``tmp:<regex>``
    Local storage: the temporary file of an object whose key matches is complete, not yet published
    (``write``, ``put_if_absent``, ``compare_and_swap`` and streamed outputs at ``close``). The kill
    leaves a whole temporary file.
``stream:<regex>``
    Local storage: a streamed output (a base file) whose key matches has received its first bytes:
    the kill leaves a partial temporary file.
``s3:<Operation>:<regex>``
    S3: right before a botocore call ``Operation`` (``PutObject``, ``UploadPart``...) on a key
    matching (the request is not sent).
``call:<module>:<qualname>`` / ``after:<module>:<qualname>``
    Right before the function runs / right after it returned. The attribute is replaced where it is
    defined, so name the module the caller looks it up in (methods: their class).

Examples: ``tmp:\\.rollback$`` (a rollback executed, its completed file being written),
``stream:\\.parquet$`` (half a base file), ``tmp:\\.marker\\.`` (a marker), ``tmp:\\.heartbeat/``,
``call:hudi_framework.storage_sweep:discard_incomplete_writes``.
"""

from __future__ import annotations

import functools
import importlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Environment variable naming the park point of a process started by :mod:`tests.faults.processes`.
PARK_ENV = "HUDI_FAULT_PARK"


@dataclass
class ParkPoint:
    """A parsed park point and its match counter."""

    kind: str
    pattern: str
    nth: int = 1
    seen: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def parse(cls, spec: str) -> ParkPoint:
        body, _, nth = spec.rpartition("@") if re.search(r"@\d+$", spec) else (spec, "", "1")
        kind, _, pattern = body.partition(":")
        if kind not in {"tmp", "stream", "s3", "call", "after"} or not pattern:
            raise ValueError(f"bad park point {spec!r}")
        return cls(kind, pattern, int(nth))

    def hit(self) -> bool:
        """Count a match; True when it is the n-th."""
        with self._lock:
            self.seen += 1
            return self.seen == self.nth


def park(ready: Path) -> None:
    """Tell the test (the ready file) and wait for the kill."""
    ready.write_text("ready")
    while True:
        time.sleep(60)


def install(spec: str, ready: Path) -> None:
    """Install the park point ``spec`` in this process."""
    point = ParkPoint.parse(spec)
    if point.kind in {"tmp", "stream"}:
        _install_local(point, ready)
    elif point.kind == "s3":
        _install_s3(point, ready)
    else:
        _install_call(point, ready)


def _install_local(point: ParkPoint, ready: Path) -> None:
    from hudi_storage_local import backend as local

    regex = re.compile(point.pattern)  # searched in the target's absolute path
    if point.kind == "tmp":
        real_tmp_write = local.LocalStorageBackend._tmp_write

        def tmp_write(self: Any, target: Path, data: bytes) -> Path:
            tmp = real_tmp_write(self, target, data)
            if regex.search(str(target)) and point.hit():
                park(ready)
            return tmp

        local.LocalStorageBackend._tmp_write = tmp_write  # type: ignore[method-assign]
        real_close = local._PublishOnClose.close

        def close(self: Any) -> None:
            if not self._fh.closed and regex.search(str(self._target)) and point.hit():
                self._fh.flush()
                park(ready)
            real_close(self)

        local._PublishOnClose.close = close  # type: ignore[method-assign]
        return
    real_write = local._PublishOnClose.write

    def write(self: Any, data: Any) -> int:
        n = real_write(self, data)
        if regex.search(str(self._target)) and not getattr(self, "_park_seen", False):
            self._park_seen = True
            if point.hit():
                self._fh.flush()
                park(ready)
        return n

    local._PublishOnClose.write = write  # type: ignore[method-assign]


def _install_s3(point: ParkPoint, ready: Path) -> None:
    import botocore.client

    operation, _, pattern = point.pattern.partition(":")
    regex = re.compile(pattern)
    real = botocore.client.BaseClient._make_api_call  # type: ignore[attr-defined]

    def call(self: Any, operation_name: str, params: dict[str, Any]) -> Any:
        key = str(params.get("Key", params.get("Prefix", "")))
        if operation_name == operation and regex.search(key) and point.hit():
            park(ready)
        return real(self, operation_name, params)

    botocore.client.BaseClient._make_api_call = call  # type: ignore[attr-defined]


def _install_call(point: ParkPoint, ready: Path) -> None:
    module_name, _, qualname = point.pattern.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    real: Callable[..., Any] = getattr(owner, name)
    after = point.kind == "after"

    @functools.wraps(real)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not after and point.hit():
            park(ready)
        result = real(*args, **kwargs)
        if after and point.hit():
            park(ready)
        return result

    setattr(owner, name, wrapper)
