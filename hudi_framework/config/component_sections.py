"""Sections that choose plugin components: index, merger, lock, storage, and plugin loading.

Each picks a component by registered name and carries a free ``options`` mapping that the
component's own options model validates when the registry builds it; typed fields here are only the
settings the kernel itself acts on (lock timeouts, merge mode) or secrets, which must never sit in a
free mapping where ``repr`` would show them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Self
from uuid import UUID

from pydantic import Field, model_validator

from hudi_framework.config.base import CrossFieldError, CsvTuple, NonNegativeInt, PositiveInt, Section
from hudi_framework.config.components import ComponentName, ComponentOptions, ComponentRef
from hudi_framework.config.not_yet import METADATA_TABLE, NotYet
from hudi_framework.config.s3 import S3Settings
from hudi_framework.errors import PluginError
from hudi_framework.vocabulary import CUSTOM_STRATEGY_ID, RecordMergeMode, mode_of_strategy, payload_merge_mode

__all__ = [
    "IndexSettings",
    "LockSettings",
    "MergerSettings",
    "PluginSettings",
    "S3Settings",
    "StorageSettings",
]


#: Option names that look like credentials. Free option mappings are printed by ``repr``, so
#: credentials must go in typed ``SecretStr`` fields instead.
_SECRET_NAME = re.compile(r"secret|password|passwd|credential|(^|_)token$|^access_key(_id)?$", re.IGNORECASE)


def _reject_credentials(options: ComponentOptions, path: tuple[str, ...], where: str) -> None:
    for key in options:
        if _SECRET_NAME.search(key):
            raise CrossFieldError(f"credentials do not belong in a free options table; use {where}", (*path, key))


class IndexSettings(Section):
    """The record index that tags incoming keys with their file group."""

    type: ComponentName = "simple"
    """Index by registered name (``simple``, ``bloom``, ``global-simple``, ``global-bloom``,
    ``record-level``, or a plugin's); ``simple`` is Apache Hudi's Spark default."""
    options: ComponentOptions = Field(default_factory=dict)
    """Options for the index's own options model (bloom: ``num_entries``, ``fpp``, ``filter_type``...)."""

    # Apache Hudi's names (RECORD_LEVEL_INDEX, INMEMORY) map here; no index of that name exists yet.
    not_yet = (
        NotYet(
            "type",
            "Apache Hudi's partitioned record-level index (RECORD_LEVEL_INDEX) is not read; use "
            "record-level (RECORD_INDEX, global), simple or bloom",
            METADATA_TABLE,
            refused=("partitioned-record-level",),
        ),
        NotYet(
            "type",
            "Apache Hudi's in-memory index (its Flink and Java engines) has no counterpart; use simple or bloom",
            refused=("in-memory",),
        ),
    )

    @property
    def component(self) -> ComponentRef:
        """The index as a :class:`ComponentRef` for ``ComponentRegistry.build``."""
        return ComponentRef(name=self.type, options=self.options)


class MergerSettings(Section):
    """How versions of one record key are merged (hudi-format.md section 6)."""

    mode: RecordMergeMode | None = None
    """``EVENT_TIME_ORDERING``, ``COMMIT_TIME_ORDERING`` or ``CUSTOM``; ``None`` infers it like Apache Hudi:
    from the strategy id or payload class, else event time when ordering fields are set."""
    strategy_id: UUID | None = None
    """Apache Hudi merge strategy UUID; a custom merger plugin registers its UUID as an alias."""
    name: ComponentName | None = None
    """Merger by registered name; overrides the choice by mode or strategy id."""
    options: ComponentOptions = Field(default_factory=dict)
    """Options for the merger's own options model."""
    implementation_classes: CsvTuple = ()
    """Apache Hudi merger classes, kept for export; a plugin may register them as aliases."""
    payload_class: str | None = Field(default=None, min_length=1)
    """Legacy payload class name (used only to infer the mode)."""
    max_memory_bytes: PositiveInt = 1_073_741_824
    """Memory for merging log records before spilling."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        implied = mode_of_strategy(str(self.strategy_id)) if self.strategy_id else None
        if self.mode is not None and implied is not None and implied is not self.mode:
            raise CrossFieldError(
                f"strategy_id is the {implied.value} strategy but mode is {self.mode.value}",
                ("merger", "strategy_id"),
            )
        custom_choice = self.name is not None or (self.strategy_id is not None and implied is None)
        if self.mode is RecordMergeMode.CUSTOM and not (custom_choice or self.payload_class):
            raise CrossFieldError("mode CUSTOM needs a merger name or strategy_id", ("merger", "mode"))
        return self

    def effective_mode(self, ordering_fields: Sequence[str]) -> RecordMergeMode:
        """The merge mode in force, inferred like Apache Hudi's ``inferCorrectMergingBehavior``.

        Args:
            ordering_fields: The table's ordering fields.
        """
        if self.mode is not None:
            return self.mode
        if self.strategy_id is not None:
            return mode_of_strategy(str(self.strategy_id)) or RecordMergeMode.CUSTOM
        if self.name is not None:
            return RecordMergeMode.CUSTOM
        if self.payload_class is not None:
            return payload_merge_mode(self.payload_class)
        return RecordMergeMode.EVENT_TIME_ORDERING if ordering_fields else RecordMergeMode.COMMIT_TIME_ORDERING

    def lookup_name(self, ordering_fields: Sequence[str]) -> str:
        """The name (or alias) to look the merger up by in the registry.

        A merger serving a built-in merge mode registers the mode's name (``EVENT_TIME_ORDERING``)
        as an alias, so the mode alone finds it; a custom merger is found by its strategy UUID alias.

        Args:
            ordering_fields: The table's ordering fields.
        """
        if self.name is not None:
            return self.name
        mode = self.effective_mode(ordering_fields)
        if mode is not RecordMergeMode.CUSTOM:
            return mode.value
        if self.strategy_id is not None:
            return str(self.strategy_id)
        # Only a payload class names this custom merger; plugins may register it as an alias.
        return self.payload_class or CUSTOM_STRATEGY_ID


class LockSettings(Section):
    """The table lock taken around conflict checks and commits."""

    provider: ComponentName = "in-process"
    """Lock provider by registered name: ``in-process`` (one process), ``storage`` (conditional writes on
    the table's storage) or ``dynamodb``."""
    wait_time_ms: NonNegativeInt = 60_000
    """How long one lock attempt waits."""
    num_retries: NonNegativeInt = 15
    """Attempts after the first before giving up."""
    retry_wait_time_ms: NonNegativeInt = 1_000
    """Initial back-off between attempts."""
    max_retry_wait_time_ms: NonNegativeInt = 16_000
    """Upper bound of the back-off between attempts."""
    options: ComponentOptions = Field(default_factory=dict)
    """Options for the provider's own options model (dynamodb: ``table``, ``partition_key``, ``region``,
    ``endpoint_url``, ``billing_mode``...; storage: ``validity_timeout_secs``, ``renew_interval_secs``)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        _reject_credentials(self.options, ("lock", "options"), "storage.s3 or the AWS default chain")
        if self.max_retry_wait_time_ms < self.retry_wait_time_ms:
            raise CrossFieldError(
                "max_retry_wait_time_ms is below retry_wait_time_ms", ("lock", "max_retry_wait_time_ms")
            )
        return self

    @property
    def component(self) -> ComponentRef:
        """The provider as a :class:`ComponentRef` for ``ComponentRegistry.build``."""
        return ComponentRef(name=self.provider, options=self.options)


class StorageSettings(Section):
    """Where the table's files live."""

    backend: ComponentName | None = None
    """Storage backend by registered name (``local``, ``s3``); ``None`` picks it by the base path's scheme."""
    options: ComponentOptions = Field(default_factory=dict)
    """Options for the backend's own options model (s3: ``max_attempts``, ``multipart_chunksize``...)."""
    s3: S3Settings = Field(default_factory=S3Settings)
    """S3 connection settings and credentials, passed to the backend whose spec declares the
    ``s3`` settings section (the ``s3`` backend)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        _reject_credentials(self.options, ("storage", "options"), "storage.s3")
        for name in self.s3.model_fields_set & set(self.options):
            raise CrossFieldError(f"{name} is set in both storage.s3 and storage.options", ("storage", "options", name))
        return self

    def backend_options(self, section: str | None = None) -> dict[str, Any]:
        """Options for building a storage backend whose spec declares the settings ``section``.

        ``options``, plus the fields of the typed section ``section`` (``s3``) that were set.
        Secrets stay :class:`~pydantic.SecretStr` (the backend's options model extends the
        section's model). The backend, and so the section, is chosen by
        :meth:`hudi_framework.Components.storage_spec`.

        Args:
            section: The settings section the backend's spec declares; None adds nothing.

        Raises:
            PluginError: The storage settings have no section of that name (the backend's spec is wrong).
        """
        merged: dict[str, Any] = dict(self.options)
        if section is None:
            return merged
        if section in ("backend", "options") or section not in type(self).model_fields:
            raise PluginError(f"storage settings have no section {section!r}, which a storage backend declares")
        typed = getattr(self, section)
        for name in typed.model_fields_set:
            value = getattr(typed, name)
            if value is not None:
                merged[name] = value
        return merged


class PluginSettings(Section):
    """Which plugins the plugin manager loads."""

    load_entry_points: bool = True
    """Load every plugin installed under the ``hudi_framework`` entry-point group (built-ins included)."""
    disable: tuple[ComponentName, ...] = ()
    """Plugin (entry-point) names to block, e.g. ``["index-bloom"]``."""
    modules: tuple[str, ...] = ()
    """Importable modules registered as plugins besides the installed ones (a plugin under development,
    a test's): every process of a job imports and registers them, as it loads entry points."""
