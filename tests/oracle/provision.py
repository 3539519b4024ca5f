"""Provision Apache Hudi's Spark bundle and the PySpark it runs on, in a venv of their own.

A test tool, never a dependency of the product: the product runs on PySpark 4, the oracle on the
Spark Apache Hudi's newest 1.x bundle supports. Everything lands in the user's cache directory,
``<cache>/hudi_framework/oracle/<hudi version>-spark<spark version>/``:

- ``venv/``: a virtual environment holding only ``pyspark==<spark version>`` (and py4j);
- ``hudi-spark3.5-bundle_2.12-<hudi version>.jar``: the bundle from Maven Central, its SHA-1
  checked against Maven's ``.sha1`` file on download and on every reuse;
- ``aws-lock-client/``, on demand (:func:`provision_aws_lock_client`): the AWS DynamoDB lock client that
  Apache Hudi's ``DynamoDBBasedLockProvider`` drives and the AWS SDK jars of its synchronous client,
  checked the same way. Apache Hudi's own ``hudi-aws-bundle`` is not on Maven Central as reachable
  here, so the lock protocol is checked against the library that defines it.

Idempotent and safe to call from several processes at once (an exclusive ``flock`` on a lock file
beside the cache folder). Run ``python -m tests.oracle.provision`` to provision ahead of a test run;
it prints the paths as JSON.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import venv
from dataclasses import asdict, dataclass
from pathlib import Path

HUDI_VERSION = "1.2.0"
SPARK_VERSION = "3.5.9"
SCALA_VERSION = "2.12"
BUNDLE_ARTIFACT = f"hudi-spark3.5-bundle_{SCALA_VERSION}"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
BUNDLE_URL = f"{MAVEN_CENTRAL}/org/apache/hudi/{BUNDLE_ARTIFACT}/{HUDI_VERSION}/{BUNDLE_ARTIFACT}-{HUDI_VERSION}.jar"
DOWNLOAD_TIMEOUT_S = 60
#: Maven coordinates of ``com.amazonaws:dynamodb-lock-client:1.2.0`` and its runtime dependencies
#: (resolved with Maven once; the Netty async HTTP client left out: the lock client is synchronous).
AWS_SDK_VERSION = "2.20.8"
_AWS_SDK_ARTIFACTS = (
    "dynamodb", "aws-json-protocol", "third-party-jackson-core", "protocol-core", "profiles", "utils",
    "metrics-spi", "json-utils", "endpoints-spi", "apache-client", "sdk-core", "annotations", "auth",
    "regions", "http-client-spi", "aws-core",
)  # fmt: skip
AWS_LOCK_CLIENT_JARS: tuple[tuple[str, str, str], ...] = (
    ("com.amazonaws", "dynamodb-lock-client", "1.2.0"),
    *(("software.amazon.awssdk", name, AWS_SDK_VERSION) for name in _AWS_SDK_ARTIFACTS),
    ("org.apache.httpcomponents", "httpclient", "4.5.13"),
    ("org.apache.httpcomponents", "httpcore", "4.4.13"),
    ("org.reactivestreams", "reactive-streams", "1.0.3"),
    ("software.amazon.eventstream", "eventstream", "1.0.1"),
    ("commons-logging", "commons-logging", "1.2"),
    ("org.slf4j", "slf4j-api", "1.7.36"),
)


class OracleUnavailableError(RuntimeError):
    """Provisioning is impossible here: no network and nothing cached. Tests skip on this only."""


class OracleProvisionError(RuntimeError):
    """Provisioning failed for another reason (a checksum mismatch, a failed pip install): tests fail."""


@dataclass(frozen=True)
class OracleEnvironment:
    """Where the provisioned oracle lives."""

    root: Path
    python: Path
    bundle_jar: Path
    hudi_version: str = HUDI_VERSION
    spark_version: str = SPARK_VERSION

    def as_json(self) -> str:
        return json.dumps({k: str(v) for k, v in asdict(self).items()}, indent=2)


def cache_root() -> Path:
    """``$HUDI_ORACLE_CACHE``, else ``$XDG_CACHE_HOME/hudi_framework/oracle``, else ``~/.cache/...``."""
    explicit = os.environ.get("HUDI_ORACLE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hudi_framework" / "oracle"


def environment_dir() -> Path:
    return cache_root() / f"{HUDI_VERSION}-spark{SPARK_VERSION}"


def _fetch(url: str, target: Path) -> None:
    part = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response, part.open("wb") as out:
            shutil.copyfileobj(response, out, length=1 << 20)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        part.unlink(missing_ok=True)
        raise OracleUnavailableError(f"cannot download {url}: {exc}") from exc
    part.replace(target)


def _sha1(path: Path) -> str:
    digest = hashlib.sha1()  # Maven Central publishes SHA-1 sums: this checks the transfer
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _ensure_jar(root: Path, url: str) -> Path:
    """The jar at ``url`` in ``root``, downloaded unless a copy with Maven's SHA-1 is there."""
    jar = root / url.rsplit("/", 1)[1]
    sha_file = root / (jar.name + ".sha1")
    if not sha_file.exists():
        _fetch(url + ".sha1", sha_file)
    # Maven's .sha1 holds the hex digest, sometimes followed by the file name.
    expected = sha_file.read_text().split()[0].strip().lower()
    if jar.exists() and _sha1(jar) == expected:
        return jar
    jar.unlink(missing_ok=True)
    _fetch(url, jar)
    actual = _sha1(jar)
    if actual != expected:
        jar.unlink()
        raise OracleProvisionError(f"{url}: SHA-1 {actual} does not match Maven's {expected}")
    return jar


def _ensure_bundle(root: Path) -> Path:
    return _ensure_jar(root, BUNDLE_URL)


def _venv_python(venv_dir: Path) -> Path:
    return venv_dir / "bin" / "python"


def _ensure_venv(root: Path) -> Path:
    venv_dir = root / "venv"
    done = venv_dir / ".provisioned"
    python = _venv_python(venv_dir)
    if done.exists() and done.read_text() == SPARK_VERSION and python.exists():
        return python
    shutil.rmtree(venv_dir, ignore_errors=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    result = subprocess.run([*pip, f"pyspark=={SPARK_VERSION}"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        shutil.rmtree(venv_dir, ignore_errors=True)
        message = f"pip install pyspark=={SPARK_VERSION} failed:\n{result.stdout}\n{result.stderr}"
        if "NewConnectionError" in result.stderr or "No matching distribution" in result.stderr:
            raise OracleUnavailableError(message)
        raise OracleProvisionError(message)
    done.write_text(SPARK_VERSION)
    return python


def provision() -> OracleEnvironment:
    """Create or reuse the oracle's venv and bundle; raise ``OracleUnavailableError`` when offline."""
    root = environment_dir()
    root.mkdir(parents=True, exist_ok=True)
    lock_path = root.with_name(root.name + ".lock")
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second pytest process waits here, then reuses the result
        try:
            jar = _ensure_bundle(root)
            python = _ensure_venv(root)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return OracleEnvironment(root=root, python=python, bundle_jar=jar)


def _maven_url(group: str, artifact: str, version: str) -> str:
    return f"{MAVEN_CENTRAL}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.jar"


def provision_aws_lock_client() -> list[Path]:
    """The class path of the AWS DynamoDB lock client; raise ``OracleUnavailableError`` when offline."""
    root = environment_dir() / "aws-lock-client"
    root.mkdir(parents=True, exist_ok=True)
    lock_path = environment_dir().with_name(environment_dir().name + ".lock")
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return [_ensure_jar(root, _maven_url(*coordinates)) for coordinates in AWS_LOCK_CLIENT_JARS]
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.parse_args(argv)
    started = time.monotonic()
    env = provision()
    print(env.as_json())
    print(f"provisioned in {time.monotonic() - started:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
