"""Provisioning without the network: offline with nothing cached is 'unavailable' (the oracle tests
skip), a jar whose SHA-1 does not match Maven's is an error (they fail), a cached jar is reused."""

from __future__ import annotations

import hashlib
import io
import urllib.error
from pathlib import Path

import pytest

from tests.oracle import provision as prov

JAR = b"not really a jar"


def _serve(monkeypatch: pytest.MonkeyPatch, files: dict[str, bytes] | None) -> list[str]:
    """Answer downloads from ``files`` by URL suffix; None: the network is down."""
    asked: list[str] = []

    def urlopen(url: str, timeout: float) -> io.BytesIO:
        asked.append(url)
        if files is None:
            raise urllib.error.URLError("network unreachable")
        return io.BytesIO(next(body for suffix, body in files.items() if url.endswith(suffix)))

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    return asked


@pytest.fixture(autouse=True)
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HUDI_ORACLE_CACHE", str(tmp_path))
    return tmp_path


def test_offline_with_nothing_cached_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, None)
    with pytest.raises(prov.OracleUnavailableError, match="cannot download"):
        prov.provision()


def test_a_jar_not_matching_mavens_checksum_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _serve(monkeypatch, {".jar.sha1": b"0" * 40 + b"\n", ".jar": JAR})
    with pytest.raises(prov.OracleProvisionError, match="does not match"):
        prov.provision()
    assert not list(prov.environment_dir().glob("*.jar"))  # the bad jar is not kept


def test_a_cached_jar_is_checked_and_reused_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    root = prov.environment_dir()
    root.mkdir(parents=True)
    jar = root / f"{prov.BUNDLE_ARTIFACT}-{prov.HUDI_VERSION}.jar"
    jar.write_bytes(JAR)
    (root / f"{jar.name}.sha1").write_text(hashlib.sha1(JAR).hexdigest())
    venv = root / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".provisioned").write_text(prov.SPARK_VERSION)
    asked = _serve(monkeypatch, None)
    env = prov.provision()
    assert (env.bundle_jar, env.python, asked) == (jar, venv / "bin" / "python", [])
