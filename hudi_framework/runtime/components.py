"""``Components``: the one place the kernel gets plugin components from, as their contract types.

A :class:`Components` is built from a plugin manager and the settings of a session. It hands out
storage for a URI, the index, the record merger, the key generator, the lock provider and each
table service, every one validated against its own options model and typed by its contract (no
caller casts). The plugin manager is built from the settings by exactly one function,
:func:`hudi_framework.plugin.plugin_manager_for`, so every process of a job (a Spark driver and its executors alike)
loads the same plugins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_framework.config.component_sections import PluginSettings, StorageSettings
from hudi_framework.contracts.index import RecordIndex
from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.contracts.lock import LockProvider, LockProviderFactory
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.service import TableService
from hudi_framework.contracts.storage import StorageBackend, StorageProvider
from hudi_framework.lock.resolve import open_table_lock
from hudi_framework.merge.choose import merger_for_table, merger_for_write
from hudi_framework.plugin.commit_hooks import PluginCommitHooks
from hudi_framework.plugin.from_settings import manager_for_plugins, plugin_manager_for
from hudi_framework.plugin.manager import HudiPluginManager
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry
from hudi_framework.storage.resolve import StorageSpec, backend_for, open_storage, settings_section
from hudi_framework.table.from_settings import timestamp_keygen_properties
from hudi_framework.table.keys import build_key_generator, typed_partition_fields
from hudi_framework.table.table_config import TableConfig

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings

__all__ = ["Components", "build_components"]


def build_components(settings: HudiSettings | None, manager: HudiPluginManager | None = None) -> Components:
    """The components of ``settings`` (None: default settings): from ``manager`` when given, else
    from the plugin manager the settings describe (:func:`~hudi_framework.plugin.plugin_manager_for`)."""
    if manager is not None:
        return Components(manager, settings)
    if settings is not None:
        return Components.from_settings(settings)
    # Default settings: only their plugins section is needed now (a table opened without settings).
    plugins = PluginSettings()
    return Components(manager_for_plugins(plugins), None, plugins=plugins)


class Components:
    """The installed components, built as their contract types with the options ``settings`` give.

    Attributes:
        manager: The plugin manager the components come from.
        registry: The components by kind and name (listings, lookups).
        plugins: The ``plugins`` section the manager was built from; None when the manager was
            handed in (an embedder's or a test's, maybe with explicitly registered plugins).
    """

    def __init__(
        self,
        manager: HudiPluginManager,
        settings: HudiSettings | None,
        *,
        registry: ComponentRegistry | None = None,
        plugins: PluginSettings | None = None,
    ) -> None:
        """Wrap ``manager``; prefer :meth:`from_settings` or :func:`build_components`.

        Args:
            manager: The plugin manager.
            settings: The settings whose sections choose the components; None: default settings.
            registry: The manager's registry, when already built.
            plugins: The ``plugins`` section ``manager`` was built from (None: handed in).
        """
        self.manager = manager
        self.registry = registry if registry is not None else ComponentRegistry.from_manager(manager)
        self._settings = settings
        self.plugins = plugins

    @property
    def settings(self) -> HudiSettings:
        """The settings whose sections choose the components and give their options."""
        if self._settings is None:
            # Built (and imported) on first use: opening and reading a table need none of it.
            from hudi_framework.config.settings import HudiSettings

            self._settings = HudiSettings()
        return self._settings

    @classmethod
    def from_settings(cls, settings: HudiSettings) -> Components:
        """The components of a fresh plugin manager built from ``settings.plugins``."""
        return cls(plugin_manager_for(settings), settings, plugins=settings.plugins)

    def with_settings(self, settings: HudiSettings) -> Components:
        """These components for other settings (a write's), on the plugins those settings load.

        The plugin manager is kept when it was handed in or when ``settings.plugins`` equals the
        section it was built from; otherwise a manager is built from ``settings``, as every other
        process of the job builds it.
        """
        if self.plugins is None or self.plugins == settings.plugins:
            return Components(self.manager, settings, registry=self.registry, plugins=self.plugins)
        return Components.from_settings(settings)

    # ------------------------------------------------------------------ storage
    def storage_backend_name(self, base_uri: str) -> str:
        """The name of the installed storage backend serving ``base_uri``'s scheme.

        Raises:
            UnknownComponentError: No installed backend serves the scheme.
        """
        return backend_for(self.registry, base_uri)

    def storage_provider(self, backend: str, options: Mapping[str, Any] | None = None) -> StorageProvider:
        """The storage provider ``backend`` with its ``options``.

        Raises:
            UnknownComponentError: No such backend is installed.
            PluginConfigError: The options fail the backend's options model.
        """
        return self.registry.build(ComponentKind.STORAGE, backend, options or {}, field_path="storage.options")

    def storage_spec(self, base_uri: str, storage: StorageSettings | None = None) -> StorageSpec:
        """How ``storage`` (default: the settings' storage section) opens the table at ``base_uri``."""
        return StorageSpec.of(storage if storage is not None else self.settings.storage, self.registry, base_uri)

    def storage_settings_section(self, base_uri: str, spec: StorageSpec) -> str | None:
        """The storage settings section (``s3``) the backend ``spec`` opens for ``base_uri`` declares
        (None when it declares none or is not installed)."""
        return settings_section(self.registry, spec.backend, base_uri)

    def resolved_storage(self, spec: StorageSpec, base_uri: str) -> StorageSpec:
        """``spec`` with its backend named (the one serving ``base_uri``'s scheme when unnamed)."""
        return spec.resolved(self.registry, base_uri)

    def storage(self, base_uri: str, spec: StorageSpec | None = None) -> StorageBackend:
        """The storage backend rooted at ``base_uri``, opened as ``spec`` (default: the settings) says.

        Raises:
            UnknownComponentError: No installed backend has that name or serves that scheme.
            PluginConfigError: The options fail the backend's options model.
        """
        spec = spec if spec is not None else self.storage_spec(base_uri)
        return open_storage(self.registry, base_uri, backend=spec.backend, options=spec.options)

    # ------------------------------------------------------------------ write components
    def index(self) -> RecordIndex:
        """The record index ``settings.index`` chooses.

        Raises:
            UnknownComponentError: No such index is installed.
            PluginConfigError: ``index.options`` fail the index's options model.
        """
        ref = self.settings.index.component
        return self.registry.build(ComponentKind.INDEX, ref.name, ref.options, field_path="index")

    def record_merger(self, config: TableConfig) -> RecordMerger:
        """The merger a write with these settings runs on a table of ``config``.

        Raises:
            MergeModeMismatchError: The settings ask for another merge behaviour than the table persists.
            MergeStrategyNotFoundError: The table's custom strategy is not installed.
            UnknownComponentError: No installed merger has the name or alias selected.
            PluginConfigError: ``merger.options`` fail the merger's options model.
        """
        return merger_for_write(self.registry, config, self.settings.merger)

    def table_merger(self, config: TableConfig) -> RecordMerger:
        """The merger the table's ``hoodie.properties`` select (readers and compaction run it).

        Raises:
            MergeStrategyNotFoundError: The table's custom strategy is not installed.
            UnknownComponentError: The table's payload class has no installed merger.
        """
        return merger_for_table(self.registry, config)

    def key_generator(self, config: TableConfig) -> KeyGenerator:
        """The table's key generator, with the partition fields the settings type (``field:TYPE``).

        Raises:
            UnknownComponentError: No installed plugin provides the table's key generator.
            PluginConfigError: The component's options model rejects the options.
            InvalidConfigValueError: The table's key settings are invalid for its key generator.
        """
        typed = typed_partition_fields(config, self.settings.table.partition_fields)
        # Timestamp options fill in what the table did not persist (Apache Hudi persists them for the
        # timestamp key generator only; its writers pass them for a custom one's :TIMESTAMP fields).
        given = timestamp_keygen_properties(self.settings)
        return build_key_generator(self.registry, config, write_options=given, partition_fields=typed)

    def lock_provider(self) -> LockProviderFactory:
        """The lock provider ``settings.lock`` names (or an Apache Hudi class alias of it).

        Raises:
            UnknownComponentError: No such lock provider is installed.
            PluginConfigError: ``lock.options`` fail the provider's options model.
        """
        lock = self.settings.lock
        return self.registry.build(ComponentKind.LOCK, lock.provider, lock.options, field_path="lock.options")

    def lock_is_process_local(self) -> bool:
        """Whether the lock provider ``settings.lock`` names declares that its locks exclude only the
        writers of one process (read from its factory class; nothing is built).

        Raises:
            UnknownComponentError: No such lock provider is installed.
        """
        factory = self.registry.get(ComponentKind.LOCK, self.settings.lock.provider).spec.load_factory()
        return isinstance(factory, type) and issubclass(factory, LockProviderFactory) and factory.process_local

    def table_lock(
        self, *, base_path: str, table_name: str, storage: StorageBackend, owner: str | None = None
    ) -> LockProvider:
        """The lock provider ``settings.lock`` names, opened for one writer of a table.

        Raises:
            UnknownComponentError: No such lock provider is installed.
            PluginConfigError: ``lock.options`` fail the provider's options model.
            LockProviderError: The provider's backing service cannot be used.
        """
        return open_table_lock(
            self.registry, self.settings.lock, base_path=base_path, table_name=table_name, storage=storage, owner=owner
        )

    # ------------------------------------------------------------------ commit hooks
    def commit_hooks(self, base_path: str) -> PluginCommitHooks:
        """The commit hooks (``hudi_pre_commit``, ``hudi_commit_completed``) these plugins implement,
        for the table at ``base_path``."""
        return PluginCommitHooks(self.manager, base_path)

    # ------------------------------------------------------------------ table services
    def service_names(self) -> list[str]:
        """The installed table services, by name."""
        return self.registry.names(ComponentKind.SERVICE)

    def service(self, name: str, options: Mapping[str, Any] | None = None, *, field_path: str = "") -> TableService:
        """The table service ``name`` with its ``options``.

        Raises:
            UnknownComponentError: No such service is installed.
            PluginConfigError: The options fail the service's options model.
        """
        return self.registry.build(ComponentKind.SERVICE, name, options, field_path=field_path)
