"""Data source options: Spark lower-cases keys; split them into table path, storage and Hudi options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError

#: Data source option turning on partition/row filter pushdown. Spark offers a Python source no way
#: to read the session's ``spark.sql.python.filterPushdown.enabled``, and a reader that accepts
#: filters fails when that setting is off, so pushdown is asked for explicitly.
FILTER_PUSHDOWN_KEY = "filter.pushdown"
#: Options Spark itself adds or that only steer the data source, never Hudi settings.
_SOURCE_KEYS = frozenset({"path", "paths", "hoodie.base.path", FILTER_PUSHDOWN_KEY})


@dataclass(frozen=True)
class SourceOptions:
    """Options of one ``format("hudi")`` call, in picklable form."""

    path: str
    hoodie: Mapping[str, str] = field(default_factory=dict)
    filter_pushdown: bool = False

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SourceOptions:
        """Split Spark's (lower-cased) option map.

        Raises:
            ConfigError: No path was given.
        """
        lowered = {k.lower(): v for k, v in options.items()}
        path = lowered.get("path") or lowered.get("hoodie.base.path")
        if not path:
            raise ConfigError("format('hudi') needs a path: .load(path) / .save(path) or option('path', ...)")
        pushdown = lowered.get(FILTER_PUSHDOWN_KEY, "false").strip().lower()
        if pushdown not in ("true", "false"):
            raise ConfigError(f"option {FILTER_PUSHDOWN_KEY!r} must be true or false")
        return cls(
            path=path,
            hoodie={k: v for k, v in lowered.items() if k not in _SOURCE_KEYS},
            filter_pushdown=pushdown == "true",
        )

    def settings(self) -> HudiSettings:
        """Typed settings from the Hudi options (unknown keys fail with a suggestion)."""
        return HudiSettings.from_hoodie_options(self.hoodie, env=False)

    def storage_options(self, settings: HudiSettings) -> dict[str, Any]:
        """Options for the storage backend of :attr:`path`."""
        return settings.storage.backend_options(self.path)
