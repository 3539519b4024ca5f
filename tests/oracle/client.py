"""The project's side of the oracle: start ``driver.py`` in the oracle venv and talk to it.

Requests and answers are JSON lines over the driver's stdin/stdout; rows go over as Parquet files in a
work directory. The driver's stderr (Spark's log) goes to ``<workdir>/driver.log``, whose tail every
error quotes.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from tests.oracle.provision import OracleEnvironment

DRIVER = Path(__file__).with_name("driver.py")
START_TIMEOUT_S = 300.0
REQUEST_TIMEOUT_S = 900.0
# Variables of the project's PySpark 4 that would point the oracle's PySpark 3.5 at the wrong Spark.
_FOREIGN_ENV = ("SPARK_HOME", "SPARK_CONF_DIR", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV")


class ApacheHudiError(RuntimeError):
    """A request Apache Hudi refused or failed; ``java_class`` names its exception."""

    def __init__(self, java_class: str, message: str, trace: str = "") -> None:
        super().__init__(f"{java_class}: {message}")
        self.java_class = java_class
        self.message = message
        self.trace = trace


class OracleDiedError(RuntimeError):
    """The driver process ended or stopped answering."""


class ApacheHudi:
    """One long-lived Apache Hudi Spark session (``local[2]``) in another process."""

    def __init__(self, env: OracleEnvironment, workdir: Path, conf: Mapping[str, str] | None = None) -> None:
        """Start the driver; ``conf`` overrides its session's settings (the benchmarks' session)."""
        self.env = env
        self.workdir = workdir
        self.log_path = workdir / "driver.log"
        self._ids = itertools.count()
        workdir.mkdir(parents=True, exist_ok=True)
        child_env = {k: v for k, v in os.environ.items() if k not in _FOREIGN_ENV}
        child_env["PYSPARK_PYTHON"] = str(env.python)
        child_env["PYSPARK_DRIVER_PYTHON"] = str(env.python)
        self._log: IO[str] = self.log_path.open("w")
        overrides = [arg for key, value in (conf or {}).items() for arg in ("--conf", f"{key}={value}")]
        self._proc = subprocess.Popen(
            [str(env.python), str(DRIVER), "--jar", str(env.bundle_jar), "--warehouse", str(workdir / "warehouse"),
             *overrides],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True, env=child_env,
            cwd=workdir,
        )  # fmt: skip
        hello = self._receive(START_TIMEOUT_S)
        if not hello.get("ok"):
            self.close()
            raise OracleDiedError(f"Apache Hudi's session did not start: {hello}\n{self.log_tail()}")
        self.spark_version: str = hello["spark"]
        self.hudi_version: str = hello["hudi"]

    # ------------------------------------------------------------------ protocol
    def log_tail(self, lines: int = 40) -> str:
        self._log.flush()
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def _receive(self, timeout: float) -> dict[str, Any]:
        assert self._proc.stdout is not None
        # A hung JVM must not hang the test run: kill it after the timeout, so readline returns.
        watchdog = threading.Timer(timeout, self._proc.kill)
        watchdog.start()
        try:
            line = self._proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line:
            raise OracleDiedError(f"Apache Hudi's driver ended (exit {self._proc.poll()}):\n{self.log_tail()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def call(self, request: Mapping[str, Any], timeout: float = REQUEST_TIMEOUT_S) -> dict[str, Any]:
        """Send one request; raise ``ApacheHudiError`` when Apache Hudi failed it."""
        assert self._proc.stdin is not None
        if self._proc.poll() is not None:
            raise OracleDiedError(f"Apache Hudi's driver has ended:\n{self.log_tail()}")
        self._proc.stdin.write(json.dumps(dict(request)) + "\n")
        self._proc.stdin.flush()
        answer = self._receive(timeout)
        if not answer.get("ok"):
            raise ApacheHudiError(answer.get("error", "?"), answer.get("message", ""), answer.get("trace", ""))
        return answer

    def _scratch(self, kind: str) -> Path:
        path = self.workdir / f"{next(self._ids):04d}-{kind}"
        path.mkdir()
        return path

    # ------------------------------------------------------------------ requests
    def write(
        self,
        path: str | Path,
        rows: pa.Table,
        options: Mapping[str, str],
        operation: str = "upsert",
        *,
        mode: str = "append",
    ) -> None:
        """``rows.write.format("hudi").options(options).option(operation).mode(mode).save(path)``."""
        data = self._scratch("write") / "rows.parquet"
        pq.write_table(rows, data)
        self.call(
            {"op": "write", "path": str(path), "options": dict(options), "operation": operation,
             "data": str(data), "mode": mode}
        )  # fmt: skip

    def read(self, path: str | Path, options: Mapping[str, str] | None = None) -> pa.Table:
        """``spark.read.format("hudi").options(options).load(path)``, as an Arrow table."""
        out = self._scratch("read") / "rows"
        self.call({"op": "read", "path": str(path), "options": dict(options or {}), "out": str(out)})
        return pq.read_table(out)

    def sql(self, query: str) -> list[dict[str, str | None]]:
        """Run a statement (``CALL run_compaction(...)``...); the rows it returns, values as text."""
        rows: list[dict[str, str | None]] = self.call({"op": "sql", "query": query})["rows"]
        return rows

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(json.dumps({"op": "shutdown"}) + "\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._log.close()
