"""Reading TOML and YAML configuration files."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.config import ConfigFileError
from hudi_framework.config.loader import read_config_file


def test_toml_sections_and_quoted_hoodie_keys(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('"hoodie.table.name" = "t"\npath = "/x"\n[table]\ntype = "mor"\n')
    parsed = read_config_file(path)
    assert parsed.sections == {"table": {"type": "mor"}}
    assert parsed.hoodie_options == {"hoodie.table.name": "t", "path": "/x"}


def test_toml_dotted_hoodie_table_is_flattened(tmp_path: Path) -> None:
    path = tmp_path / "b.toml"
    path.write_text('[hoodie.datasource.write]\noperation = "insert"\n')
    assert read_config_file(path).hoodie_options == {"hoodie.datasource.write.operation": "insert"}


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".YAML"])
def test_yaml(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"c{suffix}"
    path.write_text("hoodie.table.name: t\nwrite:\n  operation: insert\n")
    parsed = read_config_file(path)
    assert parsed.sections == {"write": {"operation": "insert"}}
    assert parsed.hoodie_options == {"hoodie.table.name": "t"}


def test_empty_yaml_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert read_config_file(path).sections == {}


def test_yaml_never_builds_python_objects(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text("table: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(ConfigFileError, match="invalid YAML"):
        read_config_file(path)


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("bad.toml", "[table\n", "invalid TOML"),
        ("bad.yaml", "table: [\n", "invalid YAML"),
        ("list.yaml", "- a\n- b\n", "must be a mapping"),
        ("conf.json", "{}", "unknown file type"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, text: str, reason: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigFileError, match=reason) as info:
        read_config_file(path)
    assert info.value.path == str(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigFileError, match="No such file"):
        read_config_file(tmp_path / "missing.toml")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(b'name = "\xe9"\n')
    with pytest.raises(ConfigFileError, match="UTF-8"):
        read_config_file(path)
