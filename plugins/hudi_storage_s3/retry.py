"""The retry policy of the S3 backend: which failures are retried, and how long to wait.

botocore's own retries are switched off (``total_max_attempts=1``) so this policy is the only one:
two stacked policies multiply attempts and hide which failures happened, and conditional writes
must *see* every failed attempt to resolve whether an earlier one landed (see
:class:`Attempts`).

Retried: throttling (``SlowDown``, ``Throttling``, HTTP 429...), every 5xx, connection and read
errors, and HTTP 409 ``ConditionalRequestConflict`` / ``OperationAborted`` (a conflicting
conditional write was in flight; S3 asks to try again). Never retried: HTTP 412
``PreconditionFailed`` (the condition is false and will stay false) and other 4xx.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, TypeVar, final

from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError

from hudi_storage_s3.options import S3StorageOptions

T = TypeVar("T")

_log = logging.getLogger(__name__)

#: Error codes S3 and STS use for "slow down".
THROTTLING_CODES: Final = frozenset(
    {
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequests",
        "TooManyRequestsException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "ProvisionedThroughputExceededException",
    }
)

#: Error codes of failures that a later identical request can get past.
TRANSIENT_CODES: Final = frozenset(
    {
        "InternalError",
        "ServiceUnavailable",
        "RequestTimeout",
        "RequestTimeoutException",
        "PriorRequestNotComplete",
        "ConditionalRequestConflict",
        "OperationAborted",
    }
)


def error_code(exc: ClientError) -> str:
    """The S3 error code (``"NoSuchKey"``; a bare status such as ``"404"`` for HEAD requests)."""
    return str(exc.response.get("Error", {}).get("Code", ""))


def http_status(exc: ClientError) -> int:
    """The HTTP status of the failed response, 0 if unknown."""
    return int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) or 0)


def is_precondition_failed(exc: BaseException) -> bool:
    """Whether ``exc`` is HTTP 412: an ``If-Match`` / ``If-None-Match`` condition was false."""
    return isinstance(exc, ClientError) and (error_code(exc) == "PreconditionFailed" or http_status(exc) == 412)


def is_not_found(exc: BaseException) -> bool:
    """Whether ``exc`` says the *object* is missing (a missing bucket is not a missing object)."""
    if not isinstance(exc, ClientError):
        return False
    code = error_code(exc)
    if code == "NoSuchBucket":
        return False
    return code in ("NoSuchKey", "NotFound", "404") or http_status(exc) == 404


def is_retryable(exc: BaseException) -> bool:
    """Whether a later identical request may succeed where this one failed."""
    if isinstance(exc, ClientError):
        if is_precondition_failed(exc):
            return False
        code = error_code(exc)
        status = http_status(exc)
        return code in THROTTLING_CODES or code in TRANSIENT_CODES or status == 429 or status >= 500
    # Connection refused/reset, DNS, timeouts and truncated bodies. The request may or may not have
    # been processed, which is why conditional writes resolve ambiguity afterwards.
    return isinstance(exc, (BotoConnectionError, HTTPClientError))


@dataclass
class Attempts:
    """The failed attempts of one retried call, for callers that must reason about them.

    A conditional write whose earlier attempt failed with a retryable error may have landed anyway
    (the response was lost, or S3 processed it before returning 500). If a later attempt then gets
    412, the object may be *ours*; the backend checks before reporting a conflict.
    """

    failures: list[BaseException] = field(default_factory=list)

    @property
    def ambiguous(self) -> bool:
        """Whether an earlier attempt failed in a way that does not prove it had no effect."""
        return bool(self.failures)


@final
class RetryPolicy:
    """Capped exponential backoff with jitter, as AWS recommends.

    The n-th retry waits ``min(max_backoff, base * 2**(n-1))`` scaled by a random factor in
    ``[0.5, 1)`` ("equal jitter"): concurrent clients spread out, and a throttled client always
    waits at least half the nominal delay.
    """

    __slots__ = ("_random", "_sleep", "base_backoff_s", "max_attempts", "max_backoff_s")

    def __init__(
        self,
        max_attempts: int = 8,
        base_backoff_s: float = 0.1,
        max_backoff_s: float = 10.0,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        """Create a policy.

        Args:
            max_attempts: Total attempts per call, the first included (1 disables retries).
            base_backoff_s: Nominal delay before the first retry.
            max_backoff_s: Cap of the nominal delay.
            sleep: Called with each delay; tests pass a recorder.
            rng: Uniform random numbers in ``[0, 1)``; tests pass a constant.
        """
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self.max_attempts = max_attempts
        self.base_backoff_s = base_backoff_s
        self.max_backoff_s = max_backoff_s
        self._sleep = sleep
        self._random = rng

    @classmethod
    def from_options(cls, options: S3StorageOptions) -> RetryPolicy:
        """The policy configured by ``options``."""
        return cls(options.max_attempts, options.base_backoff_s, options.max_backoff_s)

    def backoff(self, retry_number: int) -> float:
        """Delay before retry ``retry_number`` (1 is the first retry), in seconds."""
        nominal = min(self.max_backoff_s, self.base_backoff_s * 2.0 ** (retry_number - 1))
        return nominal * (0.5 + self._random() / 2)

    def call(self, op: Callable[[], T], *, name: str, attempts: Attempts | None = None) -> T:
        """Run ``op`` until it succeeds, fails for good, or the attempts are used up.

        Args:
            op: One request (including reading its body, so truncated downloads are retried too).
            name: Operation label for logs, such as ``"PutObject s3://bucket/key"``.
            attempts: Receives every retried failure, for ambiguity resolution.

        Returns:
            What ``op`` returned.

        Raises:
            Exception: The last error, unchanged, when it is not retryable or attempts ran out.
        """
        for attempt in range(1, self.max_attempts + 1):
            try:
                return op()
            except Exception as e:
                if attempt == self.max_attempts or not is_retryable(e):
                    raise
                if attempts is not None:
                    attempts.failures.append(e)
                delay = self.backoff(attempt)
                _log.debug(
                    "%s failed (%s), retry %d/%d in %.3fs",
                    name,
                    _describe(e),
                    attempt,
                    self.max_attempts - 1,
                    delay,
                )
                self._sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def __repr__(self) -> str:
        return (
            f"RetryPolicy(max_attempts={self.max_attempts}, base_backoff_s={self.base_backoff_s}, "
            f"max_backoff_s={self.max_backoff_s})"
        )


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ClientError):
        return f"{error_code(exc) or '?'} HTTP {http_status(exc)}"
    return type(exc).__name__
