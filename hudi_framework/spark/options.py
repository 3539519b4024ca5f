"""Data source options: Spark lower-cases keys; split them into the table path, resolved settings and
the read options.

The settings are resolved once, where Spark plans the read or write (the driver side), from the
options over the ``HUDI_*`` variables of that process, and travel to executors and the commit
worker inside the pickled reader or writer: a task never reads its own environment for them.

A read with no option beyond its path, in a process without ``HUDI_*`` variables, has the default
settings: they are then not built at all (nor the typed settings' models imported), as Spark's two
planner processes start fresh for the first read of a session and import what they use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from hudi_framework.errors import ConfigError, InvalidConfigValueError

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.runtime.table import HudiTable

#: Data source option turning on partition/row filter pushdown. Spark offers a Python source no way
#: to read the session's ``spark.sql.python.filterPushdown.enabled``, and a reader that accepts
#: filters fails when that setting is off, so pushdown is asked for explicitly.
FILTER_PUSHDOWN_KEY = "filter.pushdown"
#: Data source option: staged rows of at least this many bytes (as staged Parquet) are merged by a
#: distributed job from the commit; smaller batches are merged in the commit process itself, which
#: is faster than starting Spark jobs (``docs/spark.md``, *Writing with format("hudi")*).
DISTRIBUTED_MIN_BYTES_KEY = "write.distributed.min.bytes"
#: 256 MiB of staged Parquet (some millions of rows, a few GiB once in memory): below it the commit
#: process merges faster than the distributed job (3-6x in docs/benchmarks.md), above it memory wins.
DEFAULT_DISTRIBUTED_MIN_BYTES = 256 << 20
#: Options a catalog table adds (``CREATE TABLE ... USING hudi LOCATION '...'``): the table's
#: location is its path; the owner and provider are catalog facts, never Hudi settings.
CATALOG_LOCATION_KEY = "location"
_CATALOG_KEYS = frozenset({CATALOG_LOCATION_KEY, "owner", "provider"})
#: Options Spark itself adds or that only steer the data source, never Hudi settings.
_SOURCE_KEYS = frozenset(
    {"path", "paths", "hoodie.base.path", FILTER_PUSHDOWN_KEY, DISTRIBUTED_MIN_BYTES_KEY, *_CATALOG_KEYS}
)
#: Apache Hudi options only reads act on: a read takes them from the read options
#: (``hudi_framework.read.options``' ``METADATA_ENABLE_KEY`` and ``INCR_FALLBACK_KEY``, spelled out:
#: importing that module imports pydantic, which the process that unpickles these options, Spark's
#: partition planner, otherwise never needs; tests/acceptance/test_spark_planner_imports.py pins
#: that they agree).
READ_ONLY_KEYS = frozenset({"hoodie.metadata.enable", "hoodie.datasource.read.incr.fallback.fulltablescan.enable"})
#: Apache Hudi's options of its Structured Streaming source (``readStream``), read by
#: :mod:`hudi_framework.spark.stream_read`.
STREAM_READ_KEYS = frozenset({"hoodie.datasource.streaming.startoffset"})
#: Apache Hudi's options of its Structured Streaming sink (``writeStream``), read by
#: :mod:`hudi_framework.spark.stream_write`.
STREAM_WRITE_KEYS = frozenset(
    {
        "hoodie.datasource.write.streaming.checkpoint.identifier",
        "hoodie.datasource.write.streaming.retry.count",
        "hoodie.datasource.write.streaming.retry.interval.ms",
        "hoodie.datasource.write.streaming.ignore.failed.batch",
        "hoodie.datasource.write.streaming.disable.compaction",
    }
)
#: Options Spark passes to a streaming sink that are the query's, not the table's.
_QUERY_KEYS = frozenset({"checkpointlocation", "queryname"})


@dataclass(frozen=True)
class SourceOptions:
    """Options of one ``format("hudi")`` call, resolved and in picklable form.

    Attributes:
        path: The table's base path.
        resolved: Settings from the options (over ``HUDI_*`` variables), storage credentials
            included as secrets (masked in ``repr``); None when nothing sets any (the defaults).
        hoodie: The options that do not set storage, for the read options; never credentials.
        filter_pushdown: Whether Spark's filters are pushed into the read.
        streaming: Options of Structured Streaming queries (:data:`STREAM_READ_KEYS`,
            :data:`STREAM_WRITE_KEYS`), kept apart from the settings.
        distributed_min_bytes: Staged bytes from which a staged write merges in executors
            (:data:`DISTRIBUTED_MIN_BYTES_KEY`), None when the option was not given.
    """

    path: str
    resolved: HudiSettings | None = None
    hoodie: Mapping[str, str] = field(default_factory=dict)
    filter_pushdown: bool = False
    streaming: Mapping[str, str] = field(default_factory=dict)
    distributed_min_bytes: int | None = None

    @property
    def staged_merge_min_bytes(self) -> int:
        """Staged bytes from which a staged ``df.write`` merges in executors."""
        return DEFAULT_DISTRIBUTED_MIN_BYTES if self.distributed_min_bytes is None else self.distributed_min_bytes

    @cached_property
    def settings(self) -> HudiSettings:
        """The settings: :attr:`resolved`, or the defaults when nothing set any."""
        from hudi_framework.config.settings import HudiSettings

        return self.resolved if self.resolved is not None else HudiSettings()

    @classmethod
    def parse(cls, options: Mapping[str, str], *, read: bool = False) -> SourceOptions:
        """Split Spark's (lower-cased) option map and resolve the settings.

        Args:
            options: Spark's option map.
            read: For a read: options only reads act on (``hoodie.metadata.enable``) are checked by
                the read options, not by the settings (where writes refuse the values they cannot honour).

        Raises:
            ConfigError: No path was given, or an option is unknown or invalid.
        """
        lowered = {k.lower(): v for k, v in options.items()}
        path = _as_uri(lowered.get("path") or lowered.get("hoodie.base.path") or lowered.get(CATALOG_LOCATION_KEY))
        if not path:
            raise ConfigError(
                "format('hudi') needs a path: .load(path) / .save(path) or option('path', ...). Spark gives a "
                "Python data source no options for a catalog table (CREATE TABLE ... USING hudi): query one "
                "through CREATE TEMPORARY VIEW v USING hudi OPTIONS (path '...')"
            )
        pushdown = lowered.get(FILTER_PUSHDOWN_KEY, "false").strip().lower()
        if pushdown not in ("true", "false"):
            raise ConfigError(f"option {FILTER_PUSHDOWN_KEY!r} must be true or false")
        min_bytes = _non_negative(lowered, DISTRIBUTED_MIN_BYTES_KEY)
        streaming = {k: v for k, v in lowered.items() if k in STREAM_READ_KEYS or k in STREAM_WRITE_KEYS}
        hoodie = {
            k: v for k, v in lowered.items() if k not in _SOURCE_KEYS and k not in _QUERY_KEYS and k not in streaming
        }
        settable = {k: v for k, v in hoodie.items() if not (read and k in READ_ONLY_KEYS)}
        if not settable and not _settings_in_environment():
            return cls(
                path=path,
                hoodie=hoodie,
                filter_pushdown=pushdown == "true",
                streaming=streaming,
                distributed_min_bytes=min_bytes,
            )
        # Imported here: the typed settings' models cost ~0.2 s to import (see the module docstring).
        from hudi_framework.config.hoodie_keys import sets_storage
        from hudi_framework.config.settings import HudiSettings

        return cls(
            path=path,
            resolved=HudiSettings.from_hoodie_options(settable, env=True),
            hoodie={k: v for k, v in hoodie.items() if not sets_storage(k)},
            filter_pushdown=pushdown == "true",
            streaming=streaming,
            distributed_min_bytes=min_bytes,
        )

    def refuse_streaming(self, allowed: frozenset[str] = frozenset(), *, batch_write: bool = False) -> None:
        """Refuse the streaming options other than ``allowed``: they act only in the query they belong
        to; and, unless for a ``batch_write``, :data:`DISTRIBUTED_MIN_BYTES_KEY`, which acts in
        ``df.write`` only.

        Raises:
            InvalidConfigValueError: Naming the first such option.
        """
        if not batch_write and self.distributed_min_bytes is not None:
            raise InvalidConfigValueError(DISTRIBUTED_MIN_BYTES_KEY, "applies to df.write.format('hudi') only")
        for key in sorted(self.streaming):
            if key not in allowed:
                where = "readStream" if key in STREAM_READ_KEYS else "writeStream"
                raise InvalidConfigValueError(key, f"applies to Structured Streaming queries ({where}) only")

    def open_table(self) -> HudiTable:
        """The table at :attr:`path`, on the storage and plugins the settings describe."""
        from hudi_framework.runtime.table import HudiTable

        return HudiTable.open(self.path, settings=self.resolved)


def _non_negative(options: Mapping[str, str], key: str) -> int | None:
    raw = options.get(key)
    if raw is None:
        return None
    try:
        value = int(raw.strip())
    except ValueError:
        value = -1
    if value < 0:
        raise InvalidConfigValueError(key, f"must be a whole number of bytes, at least 0 (got {raw!r})")
    return value


def _as_uri(path: str | None) -> str | None:
    """``path`` as the tables take it: a catalog table's path is Hadoop's ``file:/data/t`` form."""
    if path and path.startswith("file:/") and not path.startswith("file://"):
        return "file://" + path[len("file:") :]
    return path


def _settings_in_environment() -> bool:
    """Whether a variable of this process may set a setting (``HUDI_*``, matched as the settings match)."""
    from hudi_framework.config.paths import ENV_PREFIX  # imports pydantic: the parsing process only

    return any(name.upper().startswith(ENV_PREFIX) for name in os.environ)
