"""Reading configuration files: TOML (``tomllib``) and YAML (``yaml.safe_load``).

A file holds settings sections (``[table]``, ``[write]``...) and may also hold Apache Hudi options,
either as top-level keys containing dots (``"hoodie.table.name" = "trips"`` in TOML,
``hoodie.table.name: trips`` in YAML), as a top-level ``path``, or nested under a top-level
``hoodie`` table, which is flattened back to dotted keys. Files are only read when asked for by
path; nothing searches the working or home directory.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import yaml

from hudi_framework.errors import ConfigFileError

__all__ = ["ConfigFile", "read_config_file"]

_TOML: Final = frozenset({".toml"})
_YAML: Final = frozenset({".yaml", ".yml"})
#: Top-level keys that are Apache Hudi (Spark datasource) options even though they have no dot.
_BARE_OPTION_KEYS: Final = frozenset({"path"})


@dataclass(frozen=True)
class ConfigFile:
    """A parsed configuration file.

    Attributes:
        path: The file.
        sections: Settings sections, nested (``{"table": {"name": "trips"}}``).
        hoodie_options: Apache Hudi options found in the file, by dotted key.
    """

    path: Path
    sections: dict[str, Any] = field(default_factory=dict)
    hoodie_options: dict[str, Any] = field(default_factory=dict)


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, Mapping):
        for key, sub in value.items():
            _flatten(f"{prefix}.{key}", sub, out)
    else:
        out[prefix] = value


def _parse(path: Path, text: str) -> Any:
    suffix = path.suffix.lower()
    if suffix in _TOML:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigFileError(str(path), f"invalid TOML: {e}") from None
    if suffix in _YAML:
        try:
            # safe_load: a config file must never be able to construct arbitrary Python objects.
            return yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ConfigFileError(str(path), f"invalid YAML: {e}") from None
    raise ConfigFileError(str(path), "unknown file type; use .toml, .yaml or .yml")


def read_config_file(path: str | Path) -> ConfigFile:
    """Read and split one configuration file.

    Args:
        path: A ``.toml``, ``.yaml`` or ``.yml`` file.

    Returns:
        The file's settings sections and Apache Hudi options.

    Raises:
        ConfigFileError: The file is missing, unreadable, of an unknown type, not parseable, or not a
            mapping at the top.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigFileError(str(path), e.strerror or type(e).__name__) from None
    except UnicodeDecodeError:
        raise ConfigFileError(str(path), "not UTF-8 text") from None
    data = _parse(file, text)
    if data is None:  # an empty YAML file
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigFileError(str(path), "the top level must be a mapping of sections")
    result = ConfigFile(file)
    for key, value in data.items():
        name = str(key)
        if name == "hoodie":
            _flatten(name, value, result.hoodie_options)
        elif "." in name or name.lower() in _BARE_OPTION_KEYS:
            result.hoodie_options[name] = value
        else:
            result.sections[name] = value
    return result
