"""Fault injection at the botocore level for the S3 fault scenarios, and table helpers shared by them.

:class:`S3Faults` wraps ``botocore.client.BaseClient._make_api_call`` (every client of the process,
including the ones our backend builds) and applies rules matched by operation name and object key:

* an HTTP error *before* S3 sees the request (503 SlowDown, 500 InternalError, 429 Throttling,
  409 OperationAborted...): the call raises the ``ClientError`` botocore would raise;
* ``after=True``: the request reaches S3 and is applied, then the error comes back instead of the
  response (a 500 after the write happened);
* ``lost=True``: the request is applied, then the connection drops (``ConnectionClosedError``), so
  the caller cannot know the outcome: the "commit state unknown" case.

Every injection is counted, so a test proves that its faults really happened.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, NoReturn

import boto3
import botocore.client
import hudi
import pyarrow as pa
import pytest
from botocore.exceptions import ClientError, ConnectionClosedError

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing import DUMMY_AWS_ENV

Rows = list[tuple[str, str, int]]

#: Fast retries for the fault scenarios: a handful of attempts, millisecond backoff.
FAST_RETRY: dict[str, object] = {"max_attempts": 5, "base_backoff_s": 0.005, "max_backoff_s": 0.02}


@dataclass
class Fault:
    """One injection rule; ``times`` is how many matching calls it hits (then it is spent), and
    ``once_per_key`` lets each key's retry through."""

    operation: str
    key: Callable[[str], bool]
    code: str = ""
    status: int = 0
    after: bool = False
    lost: bool = False
    times: int = 1
    once_per_key: bool = False
    injected: int = 0
    keys: list[str] = field(default_factory=list)

    def label(self) -> str:
        kind = "lost response" if self.lost else f"{self.status} {self.code}{' after apply' if self.after else ''}"
        return f"{self.operation}: {kind}"


class S3Faults:
    """The active rules; install with :func:`s3_faults`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rules: list[Fault] = []

    def add(self, operation: str, key: Callable[[str], bool] | str, **kwargs: Any) -> Fault:
        """Add a rule; ``key`` is a predicate or a substring of the object key (or list prefix)."""
        match = key if callable(key) else (lambda k, part=key: part in k)
        fault = Fault(operation, match, **kwargs)
        with self._lock:
            self.rules.append(fault)
        return fault

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()

    def _take(self, operation: str, key: str) -> Fault | None:
        with self._lock:
            for rule in self.rules:
                if rule.once_per_key and key in rule.keys:
                    continue
                if rule.operation == operation and rule.injected < rule.times and rule.key(key):
                    rule.injected += 1
                    rule.keys.append(key)
                    return rule
        return None

    def call(self, original: Callable[..., Any], client: Any, operation: str, params: dict[str, Any]) -> Any:
        key = call_key(params)
        rule = self._take(operation, key)
        if rule is None:
            return original(client, operation, params)
        inject(
            original, client, operation, params, code=rule.code, status=rule.status, after=rule.after, lost=rule.lost
        )


def call_key(params: dict[str, Any]) -> str:
    """The object key (or list prefix) a botocore call addresses."""
    return str(params.get("Key", params.get("Prefix", "")))


def inject(
    original: Callable[..., Any],
    client: Any,
    operation: str,
    params: dict[str, Any],
    *,
    code: str = "",
    status: int = 0,
    after: bool = False,
    lost: bool = False,
) -> NoReturn:
    """Fail one call as a fault would: an HTTP error (``code``/``status``) before S3 sees it, the
    same error after S3 applied it (``after``), or a connection lost after S3 applied it (``lost``)."""
    if lost or after:
        original(client, operation, params)
    if lost:
        raise ConnectionClosedError(endpoint_url=f"fault-injection://{operation}/{call_key(params)}")
    error = {"Error": {"Code": code, "Message": "injected"}, "ResponseMetadata": {"HTTPStatusCode": status}}
    raise ClientError(error, operation)  # type: ignore[arg-type]


@contextmanager
def s3_faults() -> Iterator[S3Faults]:
    """Install an injector around every botocore API call of this process."""
    faults = S3Faults()
    original = botocore.client.BaseClient._make_api_call  # type: ignore[attr-defined]

    def patched(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        return faults.call(original, self, operation_name, api_params)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(botocore.client.BaseClient, "_make_api_call", patched)
        yield faults


# ----------------------------------------------------------------------------------- tables
def new_bucket(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket on the moto server (dummy credentials in the environment); its name."""
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    bucket = f"hudi-faults-{uuid.uuid4().hex[:10]}"
    admin_client(endpoint).create_bucket(Bucket=bucket)
    return bucket


@cache
def admin_client(endpoint: str) -> Any:
    """One client per moto server: a new boto3 session reloads botocore's service models (~0.1 s CPU)."""
    return boto3.session.Session(
        aws_access_key_id=DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=DUMMY_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=DUMMY_AWS_ENV["AWS_SESSION_TOKEN"],
    ).client("s3", endpoint_url=endpoint, region_name="us-east-1")


def s3_options(endpoint: str, **extra: object) -> dict[str, object]:
    return {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path", **extra}


def rows_of(table: pa.Table) -> Rows:
    return sorted((r["id"], r["city"], r["ts"]) for r in table.select(["id", "city", "ts"]).to_pylist())


def ours(uri: str, storage_options: dict[str, object] | None = None) -> Rows:
    return rows_of(read_table(HudiTable.open(uri, storage_options=storage_options)))


def hudi_rs(uri: str, endpoint: str | None = None, *, as_of: str | None = None) -> Rows:
    builder = hudi.HudiTableBuilder.from_base_uri(uri)
    if endpoint is not None:
        builder = builder.with_storage_options(
            {
                "aws_endpoint_url": endpoint,
                "aws_allow_http": "true",
                "aws_region": "us-east-1",
                "aws_access_key_id": DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"],
                "aws_secret_access_key": DUMMY_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
                "aws_virtual_hosted_style_request": "false",
            }
        )
    options = hudi.HudiReadOptions()
    if as_of is not None:
        options = options.with_as_of_timestamp(as_of)
    with pytest.MonkeyPatch.context() as mp:
        if endpoint is not None:
            # hudi-rs 0.5 builds one of its object stores from the environment alone, without the
            # storage options above: it would resolve AWS's own endpoint (no network here) and retry
            # for seconds per read before going on with the right store.
            mp.setenv("AWS_ENDPOINT_URL", endpoint)
        return rows_of(pa.Table.from_batches(builder.build().read(options)))


def digest(rows: Rows) -> str:
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def snapshot(
    uri: str, endpoint: str | None = None, storage_options: dict[str, object] | None = None
) -> tuple[int, str]:
    """(row count, content hash), after checking that our reader and hudi-rs return the same rows."""
    mine = ours(uri, storage_options if storage_options is not None else (s3_options(endpoint) if endpoint else None))
    assert mine == hudi_rs(uri, endpoint), "our reader and hudi-rs agree"
    return len(mine), digest(mine)


def expected(rows: Rows) -> tuple[int, str]:
    rows = sorted(rows)
    return len(rows), digest(rows)


@dataclass
class Place:
    """A table location: a local directory or an S3 prefix on the moto server (the ``place`` fixture)."""

    uri: str
    endpoint: str | None

    @property
    def options(self) -> dict[str, object] | None:
        return s3_options(self.endpoint, **FAST_RETRY) if self.endpoint else None

    def open(self) -> HudiTable:
        return HudiTable.open(self.uri, storage_options=self.options)


def local_files(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*") if p.is_file()}
