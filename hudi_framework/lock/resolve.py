"""Opening the configured lock provider for one writer of a table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hudi_framework.contracts.lock import LockContext, LockProvider
from hudi_framework.lock.owner import new_owner_id
from hudi_framework.plugin.registry import ComponentKind

if TYPE_CHECKING:
    from hudi_framework.config import LockSettings
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.plugin.registry import ComponentRegistry


def open_table_lock(
    registry: ComponentRegistry,
    settings: LockSettings,
    *,
    base_path: str,
    table_name: str,
    storage: StorageBackend,
    owner: str | None = None,
) -> LockProvider:
    """Build the provider named by ``settings.provider`` (or an Apache Hudi class alias) for this writer.

    Args:
        registry: Installed components.
        settings: The ``[lock]`` section; ``options`` are validated by the provider's options model.
        base_path: The table's base URI.
        table_name: ``hoodie.table.name``.
        storage: The table's storage backend.
        owner: This writer's id; a fresh one (host/pid/random) when None.

    Raises:
        UnknownComponentError: No such lock provider is installed.
        PluginConfigError: ``lock.options`` fail the provider's options model.
        LockProviderError: The provider's backing service cannot be used.
    """
    factory = registry.build(ComponentKind.LOCK, settings.provider, settings.options, field_path="lock.options")
    context = LockContext(base_path=base_path, table_name=table_name, storage=storage, owner=owner or new_owner_id())
    return factory.open(context)
