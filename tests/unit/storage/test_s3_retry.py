"""The S3 retry policy: what is retried, what is not, and how conditional writes resolve ambiguity.

Errors are injected by a client wrapper in front of an in-process moto client: the first calls of an
operation raise the queued errors (or, for "landed", perform the real request and then raise, as
when S3 processed a request but the response was lost).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from hudi_framework.errors import PreconditionFailedError, StorageError, StorageNotFoundError
from hudi_storage_s3 import RetryPolicy, S3StorageBackend, is_retryable
from hudi_storage_s3.backend import WRITE_TOKEN_KEY
from tests.unit.storage.conftest import MOTO_OPTIONS

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client

pytestmark = [pytest.mark.s3, pytest.mark.usefixtures("aws_env")]

LANDED = "landed"  # perform the real request, then fail as if the response was lost


def client_error(code: str, status: int, operation: str = "PutObject") -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": "injected"}, "ResponseMetadata": {"HTTPStatusCode": status}},
        operation,
    )


class FlakyClient:
    """Forwards to a real client; fails the first calls of chosen operations."""

    def __init__(self, real: S3Client, failures: dict[str, list[BaseException | str]]) -> None:
        self._real = real
        self._failures = failures
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        real = getattr(self._real, name)

        def call(**kwargs: Any) -> Any:
            with self._lock:
                self.calls[name] += 1
                queue = self._failures.get(name) or []
                failure = queue.pop(0) if queue else None
            if failure == LANDED:
                real(**kwargs)
                raise client_error("InternalError", 500)
            if isinstance(failure, BaseException):
                raise failure
            return real(**kwargs)

        return call


class Recorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> Recorder:
    return Recorder()


@pytest.fixture
def make_backend(
    moto_client: S3Client, bucket: str, sleeps: Recorder
) -> Callable[[dict[str, list[BaseException | str]]], tuple[S3StorageBackend, FlakyClient]]:
    def make(failures: dict[str, list[BaseException | str]]) -> tuple[S3StorageBackend, FlakyClient]:
        flaky = FlakyClient(moto_client, failures)
        policy = RetryPolicy(max_attempts=5, base_backoff_s=0.01, max_backoff_s=0.05, sleep=sleeps, rng=lambda: 0.5)
        backend = S3StorageBackend(f"s3://{bucket}/t", MOTO_OPTIONS, client=flaky, retry=policy)  # type: ignore[arg-type]
        return backend, flaky

    return make


# ---------------------------------------------------------------------- classification
@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("SlowDown", 503),
        ("Throttling", 400),
        ("ThrottlingException", 400),
        ("RequestLimitExceeded", 400),
        ("TooManyRequests", 429),
        ("", 429),
        ("InternalError", 500),
        ("ServiceUnavailable", 503),
        ("", 502),
        ("RequestTimeout", 400),
        ("ConditionalRequestConflict", 409),
        ("OperationAborted", 409),
    ],
)
def test_retryable_errors(code: str, status: int) -> None:
    assert is_retryable(client_error(code, status))


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("PreconditionFailed", 412),
        ("", 412),
        ("NoSuchKey", 404),
        ("AccessDenied", 403),
        ("InvalidRequest", 400),
        ("BucketAlreadyOwnedByYou", 409),
    ],
)
def test_not_retryable_errors(code: str, status: int) -> None:
    assert not is_retryable(client_error(code, status))


def test_connection_errors_are_retryable() -> None:
    assert is_retryable(EndpointConnectionError(endpoint_url="http://127.0.0.1:9"))
    assert is_retryable(ReadTimeoutError(endpoint_url="http://127.0.0.1:9"))
    assert not is_retryable(ValueError("bug"))


def test_backoff_doubles_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(max_attempts=10, base_backoff_s=0.1, max_backoff_s=1.0, rng=lambda: 0.0)
    assert [policy.backoff(n) for n in (1, 2, 3, 4, 5, 6)] == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.5, 0.5])
    high = RetryPolicy(max_attempts=10, base_backoff_s=0.1, max_backoff_s=1.0, rng=lambda: 0.999999)
    assert high.backoff(1) == pytest.approx(0.1, rel=1e-3)


def test_policy_gives_up_after_max_attempts(sleeps: Recorder) -> None:
    policy = RetryPolicy(max_attempts=3, base_backoff_s=0.01, max_backoff_s=1.0, sleep=sleeps, rng=lambda: 0.0)
    calls = 0

    def op() -> None:
        nonlocal calls
        calls += 1
        raise client_error("SlowDown", 503)

    with pytest.raises(ClientError):
        policy.call(op, name="op")
    assert calls == 3
    assert sleeps.delays == pytest.approx([0.005, 0.01])


def test_botocore_retries_are_off(moto_client: S3Client) -> None:
    from hudi_storage_s3 import build_s3_client

    retries = build_s3_client(MOTO_OPTIONS).meta.config.retries
    assert retries is not None
    assert retries["total_max_attempts"] == 1


# ---------------------------------------------------------------------- backend behaviour
@pytest.mark.parametrize(
    "error",
    [
        client_error("SlowDown", 503),
        client_error("InternalError", 500),
        client_error("TooManyRequests", 429),
        client_error("ConditionalRequestConflict", 409),
        EndpointConnectionError(endpoint_url="http://127.0.0.1:9"),
    ],
    ids=["503", "500", "429", "409", "connection"],
)
def test_transient_errors_are_retried_until_success(make_backend: Any, sleeps: Recorder, error: Exception) -> None:
    backend, flaky = make_backend({"put_object": [error, error], "get_object": [error]})
    backend.write("k", b"v")
    assert backend.read("k") == b"v"
    assert flaky.calls["put_object"] == 3
    assert flaky.calls["get_object"] == 2
    assert len(sleeps.delays) == 3


def test_put_if_absent_retries_conflict_409(make_backend: Any) -> None:
    backend, flaky = make_backend({"put_object": [client_error("ConditionalRequestConflict", 409)]})
    version = backend.put_if_absent("lock", b"mine")
    assert backend.read_versioned("lock").version == version
    assert flaky.calls["put_object"] == 2


def test_412_is_not_retried(make_backend: Any, sleeps: Recorder) -> None:
    backend, flaky = make_backend({})
    backend.write("k", b"theirs")
    with pytest.raises(PreconditionFailedError):
        backend.put_if_absent("k", b"mine")
    assert flaky.calls["put_object"] == 2  # the write and one conditional attempt
    assert sleeps.delays == []


def test_injected_412_is_not_retried(make_backend: Any, sleeps: Recorder) -> None:
    backend, flaky = make_backend({"put_object": [client_error("PreconditionFailed", 412)]})
    with pytest.raises(PreconditionFailedError):
        backend.put_if_absent("fresh", b"mine")
    assert flaky.calls["put_object"] == 1
    assert flaky.calls["head_object"] == 0  # nothing ambiguous happened, so nothing to resolve
    assert sleeps.delays == []


def test_exhausted_retries_raise_storage_error(make_backend: Any) -> None:
    backend, flaky = make_backend({"get_object": [client_error("SlowDown", 503)] * 5})
    backend.write("k", b"v")
    with pytest.raises(StorageError, match="SlowDown") as info:
        backend.read("k")
    assert not isinstance(info.value, StorageNotFoundError)
    assert isinstance(info.value.__cause__, ClientError)
    assert flaky.calls["get_object"] == 5


def test_put_if_absent_whose_first_attempt_landed_succeeds(make_backend: Any) -> None:
    backend, flaky = make_backend({"put_object": [LANDED]})
    version = backend.put_if_absent("commit", b"mine")
    current = backend.read_versioned("commit")
    assert (current.data, current.version) == (b"mine", version)
    assert flaky.calls["put_object"] == 2  # the retry got 412 and was resolved by HeadObject
    assert flaky.calls["head_object"] == 1


def test_put_if_absent_after_ambiguous_failure_still_detects_other_writer(
    make_backend: Any, moto_client: S3Client, bucket: str
) -> None:
    moto_client.put_object(Bucket=bucket, Key="t/commit", Body=b"theirs", Metadata={WRITE_TOKEN_KEY: "other"})
    backend, _ = make_backend({"put_object": [client_error("InternalError", 500)]})
    with pytest.raises(PreconditionFailedError):
        backend.put_if_absent("commit", b"mine")
    assert backend.read("commit") == b"theirs"


def test_compare_and_swap_whose_first_attempt_landed_succeeds(make_backend: Any) -> None:
    backend, _ = make_backend({})
    backend.write("ptr", b"v1")
    old = backend.read_versioned("ptr").version
    backend, _ = make_backend({"put_object": [LANDED]})
    new = backend.compare_and_swap("ptr", b"v2", old)
    assert backend.read_versioned("ptr").version == new != old
    assert backend.read("ptr") == b"v2"


def test_compare_and_swap_stale_after_ambiguous_failure_fails(make_backend: Any) -> None:
    backend, _ = make_backend({})
    backend.write("ptr", b"v1")
    stale = backend.read_versioned("ptr").version
    backend.write("ptr", b"other")
    backend, _ = make_backend({"put_object": [client_error("InternalError", 500)]})
    with pytest.raises(PreconditionFailedError):
        backend.compare_and_swap("ptr", b"mine", stale)
    assert backend.read("ptr") == b"other"


def test_not_found_is_not_retried(make_backend: Any, sleeps: Recorder) -> None:
    backend, flaky = make_backend({})
    with pytest.raises(StorageNotFoundError):
        backend.read("missing")
    assert flaky.calls["get_object"] == 1
    assert sleeps.delays == []


def test_missing_bucket_is_a_clear_storage_error(moto_client: S3Client) -> None:
    backend = S3StorageBackend("s3://no-such-bucket-here/t", MOTO_OPTIONS, client=moto_client)
    with pytest.raises(StorageError, match="does not exist") as info:
        backend.read("k")
    assert not isinstance(info.value, StorageNotFoundError)
    with pytest.raises(StorageError, match="does not exist"):
        backend.list("")
