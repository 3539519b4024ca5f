"""Choosing the table's merger from configuration (docs/mergers.md, "How the kernel picks a merger")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.errors import ConfigError, PluginError
from hudi_framework.plugin.registry import ComponentKind

if TYPE_CHECKING:
    from hudi_framework.config.component_sections import MergerSettings
    from hudi_framework.plugin.registry import ComponentRegistry

__all__ = ["build_merger"]


def build_merger(registry: ComponentRegistry, settings: MergerSettings, ordering_fields: Sequence[str]) -> RecordMerger:
    """Build the merger the settings select.

    The component is looked up by ``settings.name`` when set, else by the effective merge mode
    (``event-time-ordering`` / ``commit-time-ordering``), else by the strategy UUID, which custom
    mergers register as an alias. Its options are validated by its own options model.

    Args:
        registry: The installed components.
        settings: The ``merger`` config section.
        ordering_fields: The table's ordering fields (they decide the mode when none is set).

    Returns:
        A fresh merger.

    Raises:
        UnknownComponentError: No installed merger has that name or alias.
        PluginConfigError: ``settings.options`` fail the merger's options model.
        PluginError: The component is not a :class:`RecordMerger`.
        ConfigError: The merger implements another strategy than ``settings.strategy_id``.
    """
    name = settings.lookup_name(ordering_fields)
    merger = registry.build(ComponentKind.MERGER, name, settings.options, field_path="merger.options")
    if not isinstance(merger, RecordMerger):
        raise PluginError(f"record merger {name!r} built a {type(merger).__name__}, not a RecordMerger")
    wanted = str(settings.strategy_id) if settings.strategy_id is not None else None
    if wanted is not None and merger.strategy_id and merger.strategy_id != wanted:
        raise ConfigError(f"record merger {name!r} implements strategy {merger.strategy_id}, not {wanted}")
    return merger
