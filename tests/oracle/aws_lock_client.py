"""The AWS DynamoDB lock client (what Apache Hudi's ``DynamoDBBasedLockProvider`` drives) in a JVM of
its own, behind ``DynamoDBLockProbe.java``: one command and one answer line at a time."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hudi_framework.testing import DUMMY_AWS_ENV

PROBE = Path(__file__).with_name("DynamoDBLockProbe.java")
START_TIMEOUT_S = 120.0


class AwsLockClient:
    """One lock client (one owner) on ``table`` of the DynamoDB at ``endpoint``, item ``key``."""

    def __init__(self, jars: list[Path], endpoint: str, table: str, key: str, lease_ms: int) -> None:
        classpath = os.pathsep.join(str(j) for j in jars)
        self._proc = subprocess.Popen(
            ["java", "-cp", classpath, str(PROBE), endpoint, table, key, str(lease_ms)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, **DUMMY_AWS_ENV},
        )  # fmt: skip
        hello = self._line()
        if hello != "ready":
            self.close()
            raise RuntimeError(f"the lock client did not start: {hello!r}")

    def _line(self) -> str:
        assert self._proc.stdout is not None
        return self._proc.stdout.readline().strip()

    def _ask(self, command: str) -> str:
        assert self._proc.stdin is not None
        self._proc.stdin.write(command + "\n")
        self._proc.stdin.flush()
        return self._line()

    def acquire(self, additional_wait_ms: int) -> tuple[str, int]:
        """``acquireLock``: (``acquired``, ``not-granted`` or ``error ...``, milliseconds it took)."""
        answer = self._ask(f"acquire {additional_wait_ms}")
        outcome, _, took = answer.rpartition(" ")
        return (outcome, int(took)) if took.isdigit() else (answer, -1)

    def release(self) -> bool:
        """``releaseLock``: whether the client still held the lock it released."""
        return self._ask("release") == "released true"

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._ask("quit")
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
