"""``HudiSettings``: the project's only ``BaseSettings``, and the only code that reads config sources.

Sources, highest precedence first:

1. ``overrides`` given to :meth:`HudiSettings.load` (nested, or dotted keys like ``"write.operation"``);
2. Apache Hudi options (``hoodie_options``), mapped by :mod:`hudi_framework.config.hoodie_keys`;
3. environment variables ``HUDI_<SECTION>__<FIELD>`` (case-insensitive);
4. one TOML or YAML file.

Nothing is read at import time, and constructing ``HudiSettings(...)`` directly reads nothing
either: it validates exactly the arguments given. Only :meth:`HudiSettings.load` touches files and
the environment, and it never searches the working or home directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Self

from pydantic import Field, SecretStr, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from hudi_framework.config import layers
from hudi_framework.config.base import CrossFieldError
from hudi_framework.config.component_sections import (
    IndexSettings,
    LockSettings,
    MergerSettings,
    PluginSettings,
    StorageSettings,
)
from hudi_framework.config.hoodie_keys import HOODIE_KEYS, get_path
from hudi_framework.config.hoodie_values import render_scalar
from hudi_framework.config.job import JobSettings
from hudi_framework.config.loader import read_config_file
from hudi_framework.config.paths import ENV_DELIMITER, ENV_PREFIX, Origin, Style, close_matches
from hudi_framework.config.paths import Path as FieldPath
from hudi_framework.config.sections import ReadSettings, TableSettings, WriteSettings
from hudi_framework.config.services import ServicesSettings
from hudi_framework.config.streamer import StreamerSettings
from hudi_framework.config.validation import to_config_error
from hudi_framework.errors import ConfigError, UnknownConfigKeyError
from hudi_framework.vocabulary import RecordMergeMode

__all__ = ["HudiSettings"]


class HudiSettings(BaseSettings):
    """All settings of a table session, in typed sections.

    Load with :meth:`load` (file + environment + Apache Hudi options + overrides) or
    :meth:`from_hoodie_options`. Instances are frozen; ``repr``, ``str`` and ``model_dump_json`` mask
    secrets.
    """

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_DELIMITER,
        case_sensitive=False,
        env_ignore_empty=True,
        extra="forbid",
        frozen=True,
        hide_input_in_errors=True,
        use_attribute_docstrings=True,
    )

    table: TableSettings = Field(default_factory=TableSettings)
    """The table: identity, type, keys, partitioning."""
    write: WriteSettings = Field(default_factory=WriteSettings)
    """Writes: operation, engine, file sizing, concurrency."""
    read: ReadSettings = Field(default_factory=ReadSettings)
    """Reads: query type and instant range."""
    index: IndexSettings = Field(default_factory=IndexSettings)
    """The record index."""
    merger: MergerSettings = Field(default_factory=MergerSettings)
    """Record merging."""
    lock: LockSettings = Field(default_factory=LockSettings)
    """The table lock."""
    storage: StorageSettings = Field(default_factory=StorageSettings)
    """Storage backend and credentials."""
    services: ServicesSettings = Field(default_factory=ServicesSettings)
    """Table services."""
    plugins: PluginSettings = Field(default_factory=PluginSettings)
    """Plugin loading."""
    job: JobSettings = Field(default_factory=JobSettings)
    """The ``hudi-fw run`` job: sample data, change batches, verification."""
    streamer: StreamerSettings = Field(default_factory=StreamerSettings)
    """The ``hudi-fw streamer`` job: source, transformer, checkpoints, continuous mode."""

    def __init__(self, _origins: Mapping[FieldPath, Origin] | None = None, **values: Any) -> None:
        """Validate exactly ``values`` (sections as mappings or models); nothing else is read.

        ``_origins`` (used by :meth:`load`) records where each value came from, for messages.

        Raises:
            UnknownConfigKeyError: A key is unknown; the message suggests close known keys.
            InvalidConfigValueError: A value is invalid; the message names every bad key.
        """
        try:
            super().__init__(**values)
        except ValidationError as e:
            raise to_config_error(e, _origins or {}, type(self)) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """Validate a mapping of sections, as the constructor does (errors are :class:`ConfigError`)."""
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as e:
            # The constructor's own ConfigError comes back wrapped as a pydantic "value error".
            cause = (e.errors(include_url=False, include_input=False)[0].get("ctx") or {}).get("error")
            if isinstance(cause, ConfigError):
                raise cause from None
            raise to_config_error(e, {}, cls) from None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Use only the constructor's arguments; :meth:`load` merges the other sources itself.

        Keeping the environment out of plain construction means ``HudiSettings()`` is the same on
        every machine, and ``load`` can record where each value came from for error messages.
        """
        return (init_settings,)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.merger.mode is RecordMergeMode.EVENT_TIME_ORDERING and not self.table.ordering_fields:
            # Apache Hudi only warns and silently falls back to commit time; that loses updates.
            raise CrossFieldError("EVENT_TIME_ORDERING needs table.ordering_fields", ("merger", "mode"))
        return self

    # ------------------------------------------------------------------ loading
    @classmethod
    def load(
        cls,
        path: str | Path | None = None,
        *,
        overrides: Mapping[str, Any] | None = None,
        hoodie_options: Mapping[str, Any] | None = None,
        env: bool = True,
    ) -> Self:
        """Load settings from a file, the environment, Apache Hudi options and overrides.

        Args:
            path: A ``.toml`` / ``.yaml`` / ``.yml`` file, or None for no file.
            overrides: Highest-precedence values, nested (``{"write": {"operation": "insert"}}``) or
                with dotted keys (``{"write.operation": "insert"}``).
            hoodie_options: Apache Hudi options as passed to its Spark datasource; keys match
                case-insensitively.
            env: Read ``HUDI_*`` environment variables.

        Returns:
            The validated settings.

        Raises:
            UnknownConfigKeyError: A key is unknown; the message suggests close known keys.
            InvalidConfigValueError: A value is invalid; the message names the key as written.
            ConfigFileError: The file is missing or not parseable.
        """
        merged = layers.Layer()
        if path is not None:
            file = read_config_file(path)
            source = str(file.path)
            sections = layers.from_mapping(file.sections, style=Style.DOTTED, source=source, split_dotted=False)
            embedded = layers.from_hoodie_options(file.hoodie_options, root=cls, source=source)
            # Two spellings of one field in one file must agree; neither silently wins.
            merged = layers.merge(embedded, sections, conflicts=True, root=cls)
        if env:
            merged = layers.merge(merged, layers.from_env(cls))
        if hoodie_options:
            merged = layers.merge(merged, layers.from_hoodie_options(hoodie_options, root=cls, source="hoodie options"))
        if overrides:
            merged = layers.merge(
                merged, layers.from_mapping(overrides, style=Style.DOTTED, source=None, split_dotted=True)
            )
        return cls._validate_layer(merged)

    @classmethod
    def from_hoodie_options(cls, options: Mapping[str, Any], *, env: bool = True) -> Self:
        """Settings from the Apache Hudi option dict a Spark job already uses.

        Args:
            options: ``{"hoodie.table.name": "trips", "path": "s3://...", ...}``; keys match
                case-insensitively because Spark lower-cases them.
            env: Also read ``HUDI_*`` environment variables (below the options in precedence).

        Raises:
            UnknownConfigKeyError: A key is neither mapped nor on the ignore list.
            InvalidConfigValueError: A value is invalid; the message names the ``hoodie.*`` key.
        """
        return cls.load(hoodie_options=options, env=env)

    @classmethod
    def _validate_layer(cls, layer: layers.Layer) -> Self:
        sections = list(cls.model_fields)
        for key in layer.data:
            # Checked before construction: BaseSettings treats some underscore keywords specially.
            if key not in sections:
                origin = layer.origins.get((key,)) or next((o for p, o in layer.origins.items() if p[0] == key), None)
                spelled = origin.key.split(".")[0] if origin and origin.style is Style.DOTTED else key
                source = origin.source if origin is not None else None
                raise UnknownConfigKeyError(spelled, close_matches(key, sections)).located(source)
        return cls(_origins=layer.origins, **layer.data)

    # ------------------------------------------------------------------ export
    def to_hoodie_options(self, *, include_defaults: bool = False, include_secrets: bool = False) -> dict[str, str]:
        """These settings as Apache Hudi options (canonical keys), for Spark code and interop.

        The S3 connection goes out under Hadoop S3A's keys (``fs.s3a.endpoint``...), which Spark hands
        to Apache Hudi's Java writers too. Fields without an Apache Hudi key (``write.engine``...) are
        left out; component names without an Apache Hudi spelling use the generic upper-case form,
        which :meth:`from_hoodie_options` maps back.

        Args:
            include_defaults: Also write fields left at their default.
            include_secrets: Also write the S3 credentials, in clear (for a ``format("hudi")`` read
                that must reach the same storage); left out by default.

        Returns:
            Option key -> string value, sorted by key.
        """
        defaults = type(self)()
        options: dict[str, str] = {}
        for entry in HOODIE_KEYS:
            if entry.secret and not include_secrets:
                continue
            value = get_path(self, entry.path)
            if value is None or (not include_defaults and value == get_path(defaults, entry.path)):
                continue
            rendered = value.get_secret_value() if isinstance(value, SecretStr) else entry.render(value)
            if rendered is not None:
                options[entry.key] = rendered
        return dict(sorted(options.items()))

    def to_spark_options(self, *, include_secrets: bool = False) -> dict[str, str]:
        """Options for ``format("hudi")`` that carry these settings, storage included, to a Spark job.

        :meth:`to_hoodie_options`, plus the storage fields that have no Apache Hudi key
        (``storage.backend``, ``storage.options.*``) under their field paths, which the data source
        accepts too.

        Args:
            include_secrets: Also write the S3 credentials, in clear.
        """
        options = self.to_hoodie_options(include_secrets=include_secrets)
        if self.storage.backend is not None:
            options["storage.backend"] = self.storage.backend
        for name, value in self.storage.options.items():
            rendered = render_scalar(value)
            if rendered is not None:
                options[f"storage.options.{name}"] = rendered
        return dict(sorted(options.items()))
