"""Choosing the table's merger from configuration (docs/mergers.md, "How the kernel picks a merger").

Three ways lead to a merger:

* a built-in merge mode (``EVENT_TIME_ORDERING`` / ``COMMIT_TIME_ORDERING``) names the component that
  registers the mode's name as an alias;
* ``CUSTOM`` with a strategy UUID looks among the installed merger components for those that
  implement that UUID (:func:`strategy_of`), and ``implementation_classes`` picks the first listed
  one that is installed (Java class names in the list simply do not fit this engine and are skipped);
* a legacy payload class (deprecated) names a component that registers the class as an alias.

:func:`merger_for_write` adds the rule that a write may not change the merge behaviour a table persisted.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hudi_framework.config.component_sections import MergerSettings
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.errors import (
    ConfigError,
    HudiDeprecationWarning,
    MergeModeMismatchError,
    MergeStrategyNotFoundError,
)
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.table.table_config import with_merge_behaviour
from hudi_framework.vocabulary import (
    CUSTOM_STRATEGY_ID,
    PAYLOAD_BASED_STRATEGY_ID,
    RecordMergeMode,
    deprecated_payload_mode,
    strategy_of_mode,
)

if TYPE_CHECKING:
    from hudi_framework.plugin.registry import ComponentRegistry, RegisteredComponent
    from hudi_framework.table.table_config import TableConfig

__all__ = [
    "build_merger",
    "find_strategy",
    "first_write_config",
    "merger_for_table",
    "merger_for_write",
    "strategy_of",
    "write_settings",
]


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def strategy_of(component: RegisteredComponent[Any]) -> str | None:
    """The merge strategy UUID a merger component declares, if any.

    A component declares it through its factory's ``strategy_id`` (a :class:`RecordMerger`
    subclass), or else through an alias that is a UUID.

    Args:
        component: A registered merger component.
    """
    factory: Any = component.spec.load_factory()
    if isinstance(factory, type) and issubclass(factory, RecordMerger) and factory.strategy_id:
        return str(factory.strategy_id).lower()
    return next((a.lower() for a in component.spec.aliases if _is_uuid(a)), None)


def _names_of(component: RegisteredComponent[Any]) -> set[str]:
    spec = component.spec
    names = {spec.name, *spec.aliases}
    factory: Any = spec.load_factory()
    if isinstance(factory, type):
        names |= {factory.__name__, f"{factory.__module__}.{factory.__qualname__}"}
    return names


def find_strategy(registry: ComponentRegistry, strategy_id: str, implementation_classes: Sequence[str] = ()) -> str:
    """The registered name of the merger that implements ``strategy_id``.

    Among several, the first entry of ``implementation_classes`` that names one of them (by
    registered name, alias, class name or ``module.Class``) wins; entries that name nothing installed
    (for example Apache Hudi's Java classes) are skipped. Without such an entry the first by name wins.

    Args:
        registry: The installed components.
        strategy_id: The merge strategy UUID.
        implementation_classes: ``hoodie.write.record.merge.custom.implementation.classes``.

    Raises:
        MergeStrategyNotFoundError: No installed merger implements the UUID.
    """
    wanted = strategy_id.lower()
    specs = registry.specs(ComponentKind.MERGER)
    candidates = [c for c in specs if strategy_of(c) == wanted]
    if not candidates:
        installed = sorted({f"{s} ({c.spec.name})" for c in specs if (s := strategy_of(c)) is not None})
        raise MergeStrategyNotFoundError(strategy_id, installed)
    for entry in implementation_classes:
        for candidate in candidates:
            if entry in _names_of(candidate):
                return candidate.spec.name
    return candidates[0].spec.name


def _payload_component(
    registry: ComponentRegistry, payload_class: str, migrated_to: RecordMergeMode | None = None
) -> str | None:
    """The registered merger that implements a payload class (registered under its simple or full name).

    On a version-9 table, which migrated the payload to a built-in mode (``migrated_to``), a merger
    registered as ``<payload class>@<MODE>`` comes first: Apache Hudi then runs the mode with the
    payload's partial-update settings, not the payload class, and the two can differ.
    """
    wanted = {payload_class, payload_class.rsplit(".", 1)[-1]}
    if migrated_to is not None:
        migrated = {f"{name}@{migrated_to.value}" for name in wanted}
        specs = registry.specs(ComponentKind.MERGER)
        if found := next((c.spec.name for c in specs if migrated & set(c.spec.aliases)), None):
            return found
    return next((c.spec.name for c in registry.specs(ComponentKind.MERGER) if wanted & set(c.spec.aliases)), None)


def _lookup_name(registry: ComponentRegistry, settings: MergerSettings, ordering_fields: Sequence[str]) -> str:
    if settings.name is not None:
        return settings.name
    migrated_to = settings.mode if settings.mode not in (None, RecordMergeMode.CUSTOM) else None
    if settings.payload_class is not None and (
        found := _payload_component(registry, settings.payload_class, migrated_to)
    ):
        # A payload merger: also on Hudi 1.1 tables that persist a built-in mode for a deprecated payload.
        return found
    mode = settings.effective_mode(ordering_fields)
    if mode is not RecordMergeMode.CUSTOM:
        # The merger that registers the mode's name as an alias serves the mode.
        return registry.get(ComponentKind.MERGER, mode.value).spec.name
    strategy = str(settings.strategy_id) if settings.strategy_id is not None else None
    if strategy in (PAYLOAD_BASED_STRATEGY_ID, CUSTOM_STRATEGY_ID) and settings.payload_class is not None:
        return settings.payload_class  # a payload table: Hudi's generic CUSTOM/payload UUIDs name no merger
    if strategy is not None:
        return find_strategy(registry, strategy, settings.implementation_classes)
    return settings.lookup_name(ordering_fields)


def build_merger(registry: ComponentRegistry, settings: MergerSettings, ordering_fields: Sequence[str]) -> RecordMerger:
    """Build the merger the settings select.

    The component is looked up by ``settings.name`` when set, else by the effective merge mode
    (``event-time-ordering`` / ``commit-time-ordering``), else by the strategy UUID among the
    installed mergers (:func:`find_strategy`), else by the payload class, which payload mergers
    register as an alias. Its options are validated by its own options model.

    Args:
        registry: The installed components.
        settings: The ``merger`` config section.
        ordering_fields: The table's ordering fields (they decide the mode when none is set).

    Returns:
        A fresh merger.

    Raises:
        UnknownComponentError: No installed merger has that name or alias.
        MergeStrategyNotFoundError: No installed merger implements the CUSTOM strategy UUID.
        PluginConfigError: ``settings.options`` fail the merger's options model.
        PluginError: The component is not a :class:`RecordMerger`.
        ConfigError: The merger implements another strategy than ``settings.strategy_id``.
    """
    name = _lookup_name(registry, settings, ordering_fields)
    merger = registry.build(ComponentKind.MERGER, name, settings.options, field_path="merger.options")
    wanted = str(settings.strategy_id) if settings.strategy_id is not None else None
    generic = (None, PAYLOAD_BASED_STRATEGY_ID, CUSTOM_STRATEGY_ID)
    if wanted not in generic and merger.strategy_id and merger.strategy_id != wanted:
        raise ConfigError(f"record merger {name!r} implements strategy {merger.strategy_id}, not {wanted}")
    return merger


def merger_for_table(registry: ComponentRegistry, config: TableConfig) -> RecordMerger:
    """The merger the table's ``hoodie.properties`` select (readers and compaction use it).

    Args:
        registry: The installed components.
        config: The table config.

    Raises:
        MergeStrategyNotFoundError: The table's custom strategy is not installed.
        UnknownComponentError: The table's payload class has no installed merger.
    """
    return build_merger(registry, write_settings(config, MergerSettings()), config.ordering_fields)


def _simple(payload_class: str) -> str:
    return payload_class.rsplit(".", 1)[-1]


def _legacy_payload(config: TableConfig) -> str | None:
    """A Hudi 1.1 (v9) table's deprecated payload class kept beside a built-in merge mode, if any."""
    if config.version < 9 or config.effective_merge_mode is RecordMergeMode.CUSTOM:
        return None
    return config.payload_class if deprecated_payload_mode(config.payload_class) is not None else None


def _table_strategy(config: TableConfig) -> str | None:
    strategy = config.merge_strategy_id
    return strategy.lower() if strategy else None


def write_settings(config: TableConfig, settings: MergerSettings) -> MergerSettings:
    """The merger settings of a write to an existing table: the table's mode and strategy, the write's options.

    Args:
        config: The persisted table config.
        settings: The write's ``merger`` section.

    Raises:
        MergeModeMismatchError: The write asks for another merge mode or strategy UUID than the table persists.
    """
    table_mode = config.effective_merge_mode
    explicit = settings.mode is not None or settings.strategy_id is not None or settings.payload_class is not None
    legacy = _legacy_payload(config)
    if legacy is not None and settings.payload_class is not None and settings.mode is None:
        # The table's own deprecated payload class (v9 persists a built-in mode for it).
        explicit = _simple(settings.payload_class) != _simple(legacy) or settings.strategy_id is not None
    if explicit:
        write_mode = settings.effective_mode(config.ordering_fields)
        if write_mode is not table_mode:
            raise MergeModeMismatchError("hoodie.record.merge.mode", table_mode.value, write_mode.value)
    strategy = _table_strategy(config) if table_mode is RecordMergeMode.CUSTOM else None
    if table_mode is RecordMergeMode.CUSTOM and settings.strategy_id is not None:
        asked = str(settings.strategy_id)
        if strategy is not None and asked != strategy:
            raise MergeModeMismatchError("hoodie.record.merge.strategy.id", strategy, asked)
        strategy = asked
    payload = settings.payload_class or config.payload_class if table_mode is RecordMergeMode.CUSTOM else legacy
    return MergerSettings(
        mode=table_mode,
        strategy_id=uuid.UUID(strategy) if strategy else None,
        name=settings.name,
        options=settings.options,
        implementation_classes=settings.implementation_classes,
        payload_class=payload,
        max_memory_bytes=settings.max_memory_bytes,
    )


def merger_for_write(registry: ComponentRegistry, config: TableConfig, settings: MergerSettings) -> RecordMerger:
    """The merger a write to an existing table runs; the check that it keeps the table's merge behaviour.

    A legacy payload class in the write settings still works, with a :class:`HudiDeprecationWarning`.

    Args:
        registry: The installed components.
        config: The persisted table config.
        settings: The write's ``merger`` section.

    Raises:
        MergeModeMismatchError: Another merge mode or strategy UUID than the table persists (a merger
            chosen by name included).
        MergeStrategyNotFoundError: The table's custom strategy is not installed.
    """
    if settings.payload_class is not None:
        warnings.warn(
            f"hoodie.datasource.write.payload.class={settings.payload_class} is deprecated; "
            "set hoodie.write.record.merge.mode (and a strategy id for CUSTOM) instead",
            HudiDeprecationWarning,
            stacklevel=3,
        )
    merger = build_merger(registry, write_settings(config, settings), config.ordering_fields)
    # A merger chosen by name must still implement the table's built-in mode.
    mode = config.effective_merge_mode
    builtin = strategy_of_mode(mode) if mode is not RecordMergeMode.CUSTOM else None
    if _legacy_payload(config) is not None:
        builtin = None  # the table's deprecated payload class chose its payload merger
    if builtin is not None and merger.strategy_id and merger.strategy_id.lower() != builtin:
        raise MergeModeMismatchError("hoodie.record.merge.strategy.id", builtin, merger.strategy_id)
    return merger


def first_write_config(config: TableConfig, settings: MergerSettings) -> TableConfig | None:
    """The table config a table's first write persists when its settings ask for other merging.

    ``hoodie.properties`` fixes how records merge once data is written; until then the natural order
    (create the table, then write with ``merger.mode`` / ``merger.strategy_id`` / a payload class in
    the write's settings) must not leave the table with a mode nobody asked for.

    Args:
        config: The persisted config of a table without completed instants.
        settings: The first write's ``merger`` section.

    Returns:
        The config with the write's merge mode, strategy and payload class, or None when the write
        asks for nothing or for what the table already persists.
    """
    if settings.mode is None and settings.strategy_id is None and settings.payload_class is None:
        return None
    try:
        write_settings(config, settings)
        return None
    except MergeModeMismatchError:
        pass
    return with_merge_behaviour(
        config,
        merge_mode=settings.mode.value if settings.mode is not None else None,
        merge_strategy_id=str(settings.strategy_id) if settings.strategy_id is not None else None,
        payload_class=settings.payload_class,
    )
