"""A real Apache Kafka broker for tests: one KRaft broker+controller JVM on 127.0.0.1.

A test tool, never a dependency of the product. Apache Kafka's server and its runtime dependencies
come from Maven Central, resolved by Maven (``mvn dependency:copy-dependencies`` on a generated
pom), into the user's cache directory, ``<cache>/hudi_framework/kafka/<version>/lib/``. Starting a
broker formats a fresh KRaft storage directory (Kafka's ``StorageTool``) and runs ``kafka.Kafka``
with both roles, its client and controller listeners bound to 127.0.0.1 on free ports; nothing
listens on any other address. The JVM dies with the process that started it (``PR_SET_PDEATHSIG``).

Provisioning is idempotent and safe from several processes at once (an exclusive ``flock``). Run
``python -m tests.tools.kafka_broker`` to provision ahead of a test run, or with ``--serve`` to run
a broker until interrupted; it prints the bootstrap address.
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

KAFKA_VERSION: Final = "4.1.1"
SCALA_VERSION: Final = "2.13"
HOST: Final = "127.0.0.1"
START_TIMEOUT_S: Final = 120.0
RESOLVE_TIMEOUT_S: Final = 600.0
#: Heap of the broker JVM: a test broker holds a few thousand small records.
HEAP: Final = "-Xmx512m"
_POM: Final = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>hudi-framework.tests</groupId>
  <artifactId>kafka-broker</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_{scala}</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""
_LOG4J2: Final = """<Configuration status="OFF">
  <Appenders><Console name="err" target="SYSTEM_ERR"><PatternLayout pattern="%d %p %c: %m%n"/></Console></Appenders>
  <Loggers><Root level="WARN"><AppenderRef ref="err"/></Root></Loggers>
</Configuration>
"""


class KafkaUnavailableError(RuntimeError):
    """Kafka cannot be provisioned here: no Java, no Maven, or no network and nothing cached. Tests skip."""


class KafkaBrokerError(RuntimeError):
    """The broker failed to start or resolve for another reason: tests fail."""


def cache_root() -> Path:
    """``$HUDI_KAFKA_CACHE``, else ``$XDG_CACHE_HOME/hudi_framework/kafka``, else ``~/.cache/...``."""
    explicit = os.environ.get("HUDI_KAFKA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hudi_framework" / "kafka"


def provision(version: str = KAFKA_VERSION) -> Path:
    """The folder of Apache Kafka's jars (resolved once with Maven, then reused)."""
    root = cache_root() / version
    root.mkdir(parents=True, exist_ok=True)
    lib, done = root / "lib", root / "lib" / ".provisioned"
    with (root.parent / f"{version}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second process waits here, then reuses the result
        try:
            if done.exists() and any(lib.glob(f"kafka_{SCALA_VERSION}-{version}.jar")):
                return lib
            _resolve(root, version)
            done.write_text(version)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return lib


def _resolve(root: Path, version: str) -> None:
    mvn = shutil.which("mvn")
    if mvn is None or shutil.which("java") is None:
        raise KafkaUnavailableError("Java and Maven (mvn) are needed to provision Apache Kafka")
    (root / "pom.xml").write_text(_POM.format(scala=SCALA_VERSION, version=version))
    staging = root / "lib.part"
    shutil.rmtree(staging, ignore_errors=True)
    command = [
        mvn, "-q", "-B", "-f", str(root / "pom.xml"), "dependency:copy-dependencies",
        f"-DoutputDirectory={staging}", "-DincludeScope=runtime",
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as e:
        raise KafkaUnavailableError(f"resolving Apache Kafka {version} with Maven timed out") from e
    if result.returncode != 0:
        message = f"mvn dependency:copy-dependencies failed for Kafka {version}:\n{result.stdout}\n{result.stderr}"
        offline = ("Could not transfer", "Unknown host", "Network is unreachable", "Connection refused")
        raise (KafkaUnavailableError if any(s in result.stdout for s in offline) else KafkaBrokerError)(message)
    shutil.rmtree(root / "lib", ignore_errors=True)
    staging.rename(root / "lib")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


def _die_with_parent() -> None:
    """In the child before exec: receive SIGTERM when the parent process dies (Linux)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _cluster_id() -> str:
    """A random Kafka cluster id: a UUID in URL-safe base64 without padding (Kafka's ``Uuid``)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()


@dataclass
class KafkaBroker:
    """One running broker; :meth:`start` it, use :attr:`bootstrap`, :meth:`stop` it."""

    lib: Path
    workdir: Path
    port: int = 0
    controller_port: int = 0
    process: subprocess.Popen[bytes] | None = None
    log_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log_path = self.workdir / "broker.log"

    @property
    def bootstrap(self) -> str:
        """``127.0.0.1:<port>``, the client listener."""
        return f"{HOST}:{self.port}"

    def _properties(self) -> str:
        return "\n".join(
            [
                "process.roles=broker,controller",
                "node.id=1",
                f"controller.quorum.voters=1@{HOST}:{self.controller_port}",
                f"listeners=PLAINTEXT://{HOST}:{self.port},CONTROLLER://{HOST}:{self.controller_port}",
                f"advertised.listeners=PLAINTEXT://{HOST}:{self.port}",
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                f"log.dirs={self.workdir / 'data'}",
                "num.partitions=1",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                # Deleting records (the tests' retention) needs no log cleaner thread wait.
                "log.retention.check.interval.ms=1000",
                "",
            ]
        )

    def _java(self, main: str, *args: str) -> list[str]:
        return [
            "java", HEAP, "-XX:+UseSerialGC", "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.xml'}",
            "-cp", f"{self.lib}/*", main, *args,
        ]  # fmt: skip

    def start(self) -> KafkaBroker:
        """Format the storage and start the JVM; return once the client listener answers."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port, self.controller_port = _free_port(), _free_port()
        config = self.workdir / "server.properties"
        config.write_text(self._properties())
        (self.workdir / "log4j2.xml").write_text(_LOG4J2)
        fmt = subprocess.run(
            self._java("kafka.tools.StorageTool", "format", "-t", _cluster_id(), "-c", str(config)),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if fmt.returncode != 0:
            raise KafkaBrokerError(f"kafka StorageTool format failed:\n{fmt.stdout}\n{fmt.stderr}")
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                self._java("kafka.Kafka", str(config)),
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent,
            )  # fmt: skip
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        """Wait for the listener to accept connections (cheap to poll), then for metadata to answer."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise KafkaBrokerError(f"the Kafka broker exited ({self.process.returncode}):\n{self._log_tail()}")
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
            except OSError:
                time.sleep(0.2)
                continue
            try:
                from kafka import KafkaAdminClient  # the test extra's client

                admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=5000)
                try:
                    admin.list_topics()
                    return
                finally:
                    admin.close()
            except Exception:  # listening but not serving yet, whatever the client says
                time.sleep(0.5)
        self.stop()
        raise KafkaBrokerError(f"the Kafka broker did not answer within {START_TIMEOUT_S:.0f}s:\n{self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-40:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Stop the JVM (SIGTERM, then SIGKILL after 30 s)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def start_broker(workdir: Path | None = None, version: str = KAFKA_VERSION) -> KafkaBroker:
    """Provision Kafka and start a broker in ``workdir`` (a new temporary folder when None)."""
    lib = provision(version)
    folder = workdir or Path(tempfile.mkdtemp(prefix="hudi-kafka-"))
    return KafkaBroker(lib=lib, workdir=folder).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--serve", action="store_true", help="start a broker and keep it until interrupted")
    args = parser.parse_args(argv)
    started = time.monotonic()
    lib = provision()
    print(f"Apache Kafka {KAFKA_VERSION}: {lib} ({time.monotonic() - started:.1f}s)", file=sys.stderr)
    if not args.serve:
        return 0
    broker = start_broker()
    print(broker.bootstrap, flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
