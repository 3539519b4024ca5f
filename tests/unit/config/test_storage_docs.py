"""``docs/storage.md`` and ``docs/configuration.md`` agree with the code and with each other: every S3
option name the storage guide shows is accepted and in the reference, its example config loads, and
its tables of credential sources and tuning options match the models."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hudi_framework import Components
from hudi_framework.config import HudiSettings, S3CredentialsSource, S3Settings
from hudi_framework.config.hoodie_keys import lookup
from hudi_framework.config.s3 import parse_credentials_providers
from hudi_storage_s3 import S3StorageOptions

ROOT = Path(__file__).resolve().parents[3]
STORAGE = (ROOT / "docs" / "storage.md").read_text(encoding="utf-8")
REFERENCE = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
#: Apache Hudi keys the guide names as not supported here.
UNSUPPORTED = {"hoodie.aws.role.arn"}


def _section(title: str) -> str:
    start = STORAGE.index(title)
    following = STORAGE.find("\n#", start + len(title))
    return STORAGE[start : following if following != -1 else None]


def _ticked(pattern: str, text: str = STORAGE) -> set[str]:
    return set(re.findall(rf"`({pattern})`", text))


def test_every_s3_option_name_in_the_guide_is_accepted_and_in_the_reference() -> None:
    names = _ticked(r"(?:spark\.hadoop\.)?fs\.s3a\.[a-z.]+|hoodie\.aws\.[a-z.]+")
    assert len(names) >= 10
    for name in sorted(names - UNSUPPORTED):
        entry = lookup(name)
        assert entry is not None, name
        assert entry.path[:2] == ("storage", "s3"), name
        assert f"`{name}`" in REFERENCE or f"`spark.hadoop.{name}`" in REFERENCE, name
    for name in UNSUPPORTED:
        assert lookup(name) is None


def test_every_storage_field_path_and_variable_in_the_guide_exists() -> None:
    fields = set(S3Settings.model_fields)
    for path in _ticked(r"storage\.s3\.[a-z_]+"):
        assert path.split(".")[2] in fields, path
        assert f"`{path}`" in REFERENCE, path
    for name in _ticked(r"HUDI_STORAGE__S3__[A-Z_]+"):
        assert name.removeprefix("HUDI_STORAGE__S3__").lower() in fields, name


def test_the_guide_s_config_block_loads_onto_the_quickstart(tmp_path: Path) -> None:
    block = re.search(r"```toml\n(\[storage\.s3\].*?)```", STORAGE, re.DOTALL)
    assert block is not None
    path = tmp_path / "quickstart-s3.toml"
    path.write_text((ROOT / "configs" / "quickstart.toml").read_text() + "\n" + block.group(1))
    settings = HudiSettings.load(path, env=False)
    assert settings.storage.s3.endpoint_url == "http://127.0.0.1:5000"
    assert settings.storage.s3.addressing_style == "path"
    options = Components.from_settings(settings).storage_spec("s3://demo/trips").options
    assert S3StorageOptions.model_validate(options).max_attempts == 3


def test_the_credentials_table_matches_the_class_mapping() -> None:
    rows = re.findall(r"^\| `([a-z-]+)` \| (.+?) \| .+ \|$", _section("### Credentials"), re.MULTILINE)
    sources = {name for name, _ in rows}
    assert sources == {s.value for s in S3CredentialsSource}
    for name, classes in rows:
        for cls in re.findall(r"`(\w+)`", classes):
            assert parse_credentials_providers(cls) == (S3CredentialsSource(name),), cls


@pytest.mark.parametrize("title", ["### Tuning (`storage.options`)"])
def test_the_tuning_table_lists_exactly_the_plugin_s_own_options(title: str) -> None:
    names: set[str] = set()
    for cell in re.findall(r"^\| (`[^|]+`) \|", _section(title), re.MULTILINE):
        names |= set(re.findall(r"`([a-z_]+)`", cell))
    own = set(S3StorageOptions.model_fields) - set(S3Settings.model_fields)
    assert names == own
