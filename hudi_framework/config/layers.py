"""Configuration layers: one nested mapping per source, with the origin of every value.

``HudiSettings.load`` builds a layer from each source (file, environment, Apache Hudi options,
overrides) and merges them in precedence order. Keeping the origin of each leaf lets errors name a
key exactly as the user wrote it, whichever source it came from.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_settings import BaseSettings, EnvSettingsSource
from pydantic_settings.exceptions import SettingsError

from hudi_framework.config.hoodie_keys import ignored_value_reason, is_ignored, lookup, suggest
from hudi_framework.config.paths import (
    ENV_DELIMITER,
    ENV_PREFIX,
    Origin,
    Path,
    Style,
    close_matches,
    dotted,
    env_name,
    field_adapter,
)
from hudi_framework.config.validation import user_reason
from hudi_framework.errors import InvalidConfigValueError, UnknownConfigKeyError, UnsupportedOptionError
from hudi_framework.vocabulary import HoodieValueError

__all__ = ["Layer", "from_env", "from_hoodie_options", "from_mapping", "merge"]


@dataclass
class Layer:
    """One source's values as a nested mapping, plus where each leaf came from.

    Attributes:
        data: Nested mapping shaped like the settings (sections -> fields).
        origins: Field path of every leaf -> its origin.
    """

    data: dict[str, Any] = field(default_factory=dict)
    origins: dict[Path, Origin] = field(default_factory=dict)


def _leaves(data: Mapping[str, Any], prefix: Path = ()) -> Iterator[tuple[Path, Any]]:
    for key, value in data.items():
        path = (*prefix, str(key))
        if isinstance(value, Mapping) and value:
            yield from _leaves(value, path)
        else:
            yield path, value


def _normalise(value: Any) -> Any:
    # TOML/YAML give lists where parsed Apache Hudi values are tuples; compare them alike.
    if isinstance(value, list | tuple):
        return tuple(_normalise(v) for v in value)
    return value


def from_mapping(mapping: Mapping[str, Any], *, style: Style, source: str | None, split_dotted: bool) -> Layer:
    """A layer from a nested mapping (a parsed file, or ``overrides``).

    Args:
        mapping: Sections -> fields, nested.
        style: How keys are spelled in errors (dotted for files and overrides).
        source: Description for error notes (the file path).
        split_dotted: Split top-level keys on dots (``{"write.operation": "insert"}``).
    """
    layer = Layer()
    for key, value in mapping.items():
        if not isinstance(key, str):
            raise InvalidConfigValueError(repr(key), "configuration keys must be strings")
        path = tuple(key.split(".")) if split_dotted else (key,)
        if isinstance(value, Mapping) and value:
            for leaf, leaf_value in _leaves(value, path):
                _set(layer, leaf, leaf_value, Origin(dotted(leaf), style, source))
        else:
            _set(layer, path, value, Origin(dotted(path), style, source))
    return layer


#: Sections whose field paths are accepted among Apache Hudi options. Storage fields without an
#: Apache Hudi key (``storage.backend``, ``storage.options.*``) would otherwise be out of reach of
#: ``format("hudi")`` options and ``--option``; other sections have a key for every field that acts.
_FIELD_PATH_SECTIONS = frozenset({"storage"})
#: HoodieStreamer's source options (``hoodie.streamer.source.dfs.root``, ``hoodie.streamer.csv.sep``,
#: ``hoodie.streamer.source.kafka.topic``...) belong to the source plugin, which validates them with
#: its own options model: unmapped keys under these prefixes go to ``streamer.source_options`` as written.
_SOURCE_OPTION_PREFIXES: Final = tuple(
    f"hoodie.{tool}.{family}."
    for tool in ("streamer", "deltastreamer")
    for family in ("source", "csv", "kafka", "schemaprovider")
)
#: The Kafka consumer's own keys among HoodieStreamer's properties (it hands them to the consumer as
#: they are): the Kafka sources take them under these names (``--hoodie-conf bootstrap.servers=...``).
_KAFKA_CONSUMER_KEYS: Final = frozenset({"bootstrap.servers", "auto.offset.reset"})


def from_hoodie_options(options: Mapping[str, Any], *, root: type[BaseModel], source: str | None) -> Layer:
    """A layer from Apache Hudi options (``{"hoodie.table.name": "trips", ...}``).

    Hadoop S3A keys (``fs.s3a.*``) and the storage section's own field paths
    (``storage.s3.endpoint_url``) are accepted too; see :data:`_FIELD_PATH_SECTIONS`.

    Raises:
        UnknownConfigKeyError: A key is neither mapped nor on the ignore list; carries suggestions.
        UnsupportedOptionError: An ignored key has a value asking for a feature we lack.
        InvalidConfigValueError: A value can not be converted, or two aliases of one field disagree.
    """
    layer = Layer()
    unknown: list[str] = []
    for raw_key, value in options.items():
        key = str(raw_key)
        entry = lookup(key)
        if entry is not None:
            try:
                parsed, path = entry.parse(value), entry.path
            except HoodieValueError as e:
                raise InvalidConfigValueError(key, str(e)).located(source) from None
            origin = Origin(key, Style.HOODIE, source)
        elif key.strip().split(".", 1)[0].lower() in _FIELD_PATH_SECTIONS:
            path = tuple(key.strip().split("."))
            parsed, origin = value, Origin(key.strip(), Style.DOTTED, source)
        elif key.strip().lower().startswith(_SOURCE_OPTION_PREFIXES) or key.strip() in _KAFKA_CONSUMER_KEYS:
            path = ("streamer", "source_options", key.strip())
            parsed, origin = value, Origin(key.strip(), Style.HOODIE, source)
        else:
            if not is_ignored(key):
                unknown.append(key)
            elif refused := ignored_value_reason(key, value):
                raise UnsupportedOptionError(key, *refused).located(source)
            continue
        previous = layer.origins.get(path)
        if previous is not None:
            _check_same(root, path, _get(layer.data, path), parsed, previous, origin)
            continue
        _set(layer, path, parsed, origin)
    if unknown:
        raise UnknownConfigKeyError(unknown[0], suggest(unknown[0]), also=unknown[1:]).located(source)
    return layer


def from_env(settings_cls: type[BaseSettings]) -> Layer:
    """A layer from ``HUDI_*`` environment variables (``HUDI_WRITE__OPERATION=insert``).

    Variables without the nesting delimiter whose name is not a section are left alone: Apache
    Hudi itself reads ``HUDI_CONF_DIR`` and friends. A nested name under an unknown section is a
    typo and fails with suggestions.
    """
    sections = list(settings_cls.model_fields)
    for name in os.environ:
        upper = name.upper()
        if not upper.startswith(ENV_PREFIX) or ENV_DELIMITER not in upper[len(ENV_PREFIX) :]:
            continue
        head, _, rest = upper[len(ENV_PREFIX) :].partition(ENV_DELIMITER)
        if head.lower() not in sections:
            hints = [f"{env_name((s,))}{ENV_DELIMITER}{rest}" for s in close_matches(head.lower(), sections)]
            raise UnknownConfigKeyError(name, hints).located("environment")
    try:
        data = EnvSettingsSource(settings_cls)()
    except SettingsError as e:
        found = re.search(r'field "([^"]+)"', str(e))
        key = _undecodable_env_var(found.group(1) if found else "")
        raise InvalidConfigValueError(key, "not valid JSON").located("environment") from None
    layer = Layer()
    for path, value in _leaves(data):
        _set(layer, path, value, Origin(env_name(path), Style.ENV, "environment"))
    return layer


def _undecodable_env_var(section: str) -> str:
    # pydantic-settings names only the section; find the variable under it that is not JSON.
    prefix = env_name((section,)) if section else ENV_PREFIX
    for name, value in sorted(os.environ.items()):
        if name.upper().startswith(prefix) and value.strip()[:1] in ("{", "["):
            try:
                json.loads(value)
            except json.JSONDecodeError:
                return name
    return prefix


def merge(base: Layer, top: Layer, *, conflicts: bool = False, root: type[BaseModel] | None = None) -> Layer:
    """Overlay ``top`` on ``base`` leaf by leaf; ``base`` is not modified.

    Args:
        base: The lower-precedence layer.
        top: The higher-precedence layer.
        conflicts: Treat a leaf set to different values in both as an error (two spellings of one
            field in the same source) instead of letting ``top`` win.
        root: The settings model, to compare values after validation when checking conflicts.

    Raises:
        InvalidConfigValueError: ``conflicts`` is set and the layers disagree on a leaf.
    """
    result = Layer(copy.deepcopy(base.data), dict(base.origins))
    for path, value in _leaves(top.data):
        origin = top.origins.get(path) or Origin(dotted(path), Style.DOTTED)
        previous = result.origins.get(path)
        if conflicts and previous is not None and root is not None:
            _check_same(root, path, _get(result.data, path), value, previous, origin)
        _set(result, path, value, origin)
    return result


def _check_same(root: type[BaseModel], path: Path, old: Any, new: Any, old_origin: Origin, origin: Origin) -> None:
    adapter = field_adapter(root, path)
    if adapter is None:  # free component options: compare as given
        same = _normalise(old) == _normalise(new)
    else:
        # Compare validated values ("mor" and "MERGE_ON_READ" agree), and report a bad value under
        # its own key here: only one of the two reaches the final validation.
        same = _validated(adapter, old, old_origin) == _validated(adapter, new, origin)
    if not same:
        raise InvalidConfigValueError(origin.key, f"conflicts with {old_origin.key!r} set in the same source").located(
            origin.source
        )


def _validated(adapter: TypeAdapter[Any], value: Any, origin: Origin) -> Any:
    try:
        return adapter.validate_python(value)
    except ValidationError as e:
        reason = user_reason(e.errors(include_url=False, include_input=False)[0])
        raise InvalidConfigValueError(origin.key, reason).located(origin.source) from None


def _get(data: Mapping[str, Any], path: Path) -> Any:
    current: Any = data
    for part in path:
        current = current.get(part) if isinstance(current, Mapping) else None
    return current


def _set(layer: Layer, path: Path, value: Any, origin: Origin) -> None:
    if isinstance(value, Mapping) and not value and _get(layer.data, path) is not None:
        return  # an empty table adds nothing; it must not wipe values from lower layers
    node = layer.data
    for depth, part in enumerate(path[:-1]):
        child = node.get(part)
        if not isinstance(child, dict):
            # A scalar shorthand (``key_generator = "simple"``) is replaced by the nested form.
            layer.origins.pop(path[: depth + 1], None)
            child = node[part] = {}
        node = child
    node[path[-1]] = copy.deepcopy(value)
    # The new leaf hides whatever the lower layer had under it.
    for stale in [p for p in layer.origins if len(p) > len(path) and p[: len(path)] == path]:
        del layer.origins[stale]
    layer.origins[path] = origin
