"""``HudiTable``: open or create a table and inspect its config, timeline, file slices and schema."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import (
    ConfigError,
    IncompatibleTableConfigError,
    PreconditionFailedError,
    TableError,
    TableExistsError,
    TableNotFoundError,
    UnsupportedFormatError,
)
from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.layout.fs_view import FileSystemView, check_base_file_formats
from hudi_framework.metadata.listing import metadata_listing, warn_fallback
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json, avro_to_arrow
from hudi_framework.plugin.manager import HudiPluginManager
from hudi_framework.plugin.registry import ComponentRegistry
from hudi_framework.runtime.components import Components, build_components
from hudi_framework.runtime.retained import check_slice_files
from hudi_framework.storage.resolve import StorageSpec
from hudi_framework.table.properties import PROPERTIES_KEY, create_properties, load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.archive import ArchivedInstant, archive_format
from hudi_framework.timeline.archived_timeline import ArchivedTimeline, timeline_start
from hudi_framework.timeline.commit_hooks import CommitHooks
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.timeline.instant_time import resolve_instant_time
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TimelineTimezone

if TYPE_CHECKING:
    from hudi_framework.config.component_sections import StorageSettings
    from hudi_framework.config.settings import HudiSettings

#: Base file formats this project reads and writes.
SUPPORTED_BASE_FORMATS = ("parquet",)


class HudiTable:
    """A Hudi table at a base path: the entry point for inspection (and, later, reads and writes).

    Build it with :meth:`open` or :meth:`create`; both take an optional plugin manager so that a
    whole session shares one (there is no global manager; without one, the settings' ``plugins``
    section builds it), and either ``settings`` or explicit storage arguments. The table remembers
    how its storage was opened (:attr:`storage_spec`), so Spark tasks reach the same storage.
    """

    def __init__(
        self,
        storage: StorageBackend,
        properties: Mapping[str, str],
        *,
        components: Components,
        storage_spec: StorageSpec | None = None,
    ) -> None:
        """Wrap an opened table; prefer :meth:`open` / :meth:`create`."""
        self._storage = storage
        self._storage_spec = storage_spec
        self._properties = dict(properties)
        self._config = TableConfig.from_properties(properties)
        self._components = components
        self._timeline: Timeline | None = None
        # Files named by commit metadata already read, handed to each reloaded timeline.
        self._known_written_files: Mapping[Instant, tuple[tuple[str, str], ...]] = {}
        # The metadata table opened for the timeline it was opened with (see metadata_table).
        self._metadata: tuple[Timeline, MetadataTable | None] | None = None

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _open_storage(
        components: Components,
        base_uri: str,
        settings: HudiSettings | None,
        backend: str | None,
        options: Mapping[str, Any] | None,
        storage: StorageBackend | None,
    ) -> tuple[StorageBackend, StorageSpec | None]:
        if settings is not None:
            if backend is not None or options is not None or storage is not None:
                raise ConfigError("give the storage either as settings or as storage_backend/storage_options/storage")
            spec = components.storage_spec(base_uri, settings.storage)
        elif storage is not None:
            return storage, None  # opened elsewhere: how is not known
        else:
            spec = StorageSpec(backend, dict(options or {}))
        return components.storage(base_uri, spec), spec

    @classmethod
    def open(
        cls,
        base_uri: str,
        *,
        settings: HudiSettings | None = None,
        plugin_manager: HudiPluginManager | None = None,
        storage_backend: str | None = None,
        storage_options: Mapping[str, Any] | None = None,
        storage: StorageBackend | None = None,
    ) -> HudiTable:
        """Open an existing table.

        Args:
            base_uri: The table's base path or URI (``/data/t``, ``file:///data/t``, ``s3://b/t``).
            settings: Settings whose ``storage`` (backend, ``storage.options``, ``storage.s3``) opens
                the storage and whose ``plugins`` build the plugin manager; the usual way.
            plugin_manager: A manager to share; when None, one is built from ``settings.plugins``
                (default settings when ``settings`` is None).
            storage_backend: Storage component name; by default the one serving the URI scheme.
            storage_options: Options for the storage backend.
            storage: An already opened backend (overrides the two arguments above).

        Raises:
            ConfigError: Both ``settings`` and a storage argument were given.
            TableNotFoundError: No ``hoodie.properties`` (nor its backup).
            TableConfigCorruptError: The config cannot be used.
            TableVersionError: The table version is not supported.
        """
        components = build_components(settings, plugin_manager)
        backend, spec = cls._open_storage(components, base_uri, settings, storage_backend, storage_options, storage)
        props = load_properties(backend)
        return cls(backend, props, components=components, storage_spec=spec)

    @classmethod
    def create(
        cls,
        base_uri: str,
        config: TableConfig,
        *,
        schema: pa.Schema | None = None,
        settings: HudiSettings | None = None,
        plugin_manager: HudiPluginManager | None = None,
        storage_backend: str | None = None,
        storage_options: Mapping[str, Any] | None = None,
        storage: StorageBackend | None = None,
    ) -> HudiTable:
        """Create a table: write ``hoodie.properties`` exactly once.

        Args:
            base_uri: Where to create it.
            config: The table config (see :func:`~hudi_framework.table.table_config.new_table_config`).
            schema: Data schema (meta fields are dropped); stored as ``hoodie.table.create.schema``
                so readers know the schema before the first commit.
            settings: Settings whose ``storage`` and ``plugins`` open the storage (as in :meth:`open`).
            plugin_manager: A manager to share; built from ``settings.plugins`` when None (as in :meth:`open`).
            storage_backend: Storage component name; by default the one serving the URI scheme.
            storage_options: Options for the storage backend.
            storage: An already opened backend (overrides the two arguments above).

        Raises:
            ConfigError: Both ``settings`` and a storage argument were given.
            TableExistsError: A table already exists at ``base_uri``.
        """
        components = build_components(settings, plugin_manager)
        backend, spec = cls._open_storage(components, base_uri, settings, storage_backend, storage_options, storage)
        if schema is not None:
            missing = [f for f in (*config.record_key_fields, *config.partition_fields) if f not in schema.names]
            if missing:
                raise IncompatibleTableConfigError(f"key or partition fields {missing} are not in the schema")
            config = config.with_updates(create_schema=avro_json(arrow_to_avro(schema, config.name)))
        try:
            load_properties(backend)
        except TableNotFoundError:
            pass
        else:
            raise TableExistsError(backend.root_uri)
        try:
            props = create_properties(backend, config.to_properties())
        except PreconditionFailedError:
            raise TableExistsError(backend.root_uri) from None
        return cls(backend, props, components=components, storage_spec=spec)

    # ------------------------------------------------------------------ accessors
    @property
    def base_uri(self) -> str:
        """The table's base path or URI."""
        return self._storage.root_uri

    @property
    def storage(self) -> StorageBackend:
        """The storage backend rooted at the base path."""
        return self._storage

    @property
    def storage_spec(self) -> StorageSpec | None:
        """How the storage was opened (None when an opened backend was handed in)."""
        return self._storage_spec

    def task_storage(self, storage: StorageSettings) -> StorageSpec:
        """How another process (a Spark task) opens this table's storage, given the write's storage settings.

        The table's own spec when it is known, so tasks reach the storage the driver reaches;
        otherwise the spec ``storage`` gives.

        Raises:
            ConfigError: ``storage`` is configured, but differently from how the table was opened:
                driver and tasks would reach different storage (another endpoint, other credentials).
        """
        configured = self._components.storage_spec(self.base_uri, storage)
        if self._storage_spec is None:
            return configured
        resolve = self._components.resolved_storage
        same = resolve(configured, self.base_uri) == resolve(self._storage_spec, self.base_uri)
        if not same and storage != type(storage)():
            raise ConfigError(
                f"the settings' storage section differs from the storage {self.base_uri} was opened with; "
                "open the table with HudiTable.open(path, settings=settings)"
            )
        return self._storage_spec

    @property
    def properties(self) -> dict[str, str]:
        """``hoodie.properties`` as read (a copy)."""
        return dict(self._properties)

    @property
    def config(self) -> TableConfig:
        """The typed table config."""
        return self._config

    @property
    def components(self) -> Components:
        """The components of this table session (plugin manager and the settings it was opened with)."""
        return self._components

    @property
    def registry(self) -> ComponentRegistry:
        """Installed components."""
        return self._components.registry

    @property
    def plugin_manager(self) -> HudiPluginManager:
        """The plugin manager of this table session."""
        return self._components.manager

    @property
    def commit_hooks(self) -> CommitHooks:
        """The plugins' commit hooks for this table: every writer that completes an instant on it
        passes them to its :class:`~hudi_framework.timeline.transitions.TimelineWriter`."""
        return self._components.commit_hooks(self.base_uri)

    @property
    def timeline(self) -> Timeline:
        """The active timeline, loaded on first use (see :meth:`reload`)."""
        if self._timeline is None:
            self._timeline = Timeline.load(
                self._storage,
                layout_version=self._config.timeline_layout_version,
                timeline_path=self._config.timeline_path,
                timezone=TimelineTimezone(self._config.timeline_timezone),
                known_written_files=self._known_written_files,
            )
        return self._timeline

    @property
    def archive_directory(self) -> str:
        """Key of the archived timeline: ``.hoodie/timeline/history`` (v8+) or ``.hoodie/archived`` (v6)."""
        return self._config.archive_directory

    def archived_instants(self) -> list[ArchivedInstant]:
        """Instants of the archived timeline, oldest first, with their metadata and plans.

        An instant still on the active timeline is left out (an archival that crashed before deleting
        its active files leaves it in both; the active one counts).

        Raises:
            LsmTimelineError: The archive cannot be read.
        """
        directory = self.archive_directory
        # An archive never written is not read: no format module is loaded for it.
        if not self._storage.list(directory):
            return []
        archived = archive_format(self._storage, self._config.timeline_layout_version, directory).read()
        active = {(i.requested_time, i.comparable_action.value) for i in self.timeline.instants}
        return [a for a in archived if (a.requested_time, a.action) not in active]

    def archived_completed_instants(self) -> list[Instant]:
        """The archived instants as completed instants (with their completion times on v8+).

        For the archive as a timeline (commit metadata, replaced file groups) see
        :func:`hudi_framework.read.archived.archived_timeline`.
        """
        return [
            Instant(a.requested_time, Action(a.action), State.COMPLETED, a.completion_time)
            for a in self.archived_instants()
        ]

    def reload(self) -> HudiTable:
        """Re-read the config and the timeline (after other writers committed)."""
        self._properties = load_properties(self._storage)
        self._config = TableConfig.from_properties(self._properties)
        if self._timeline is not None:
            self._known_written_files = self._timeline.known_written_files
        self._timeline = None
        self._metadata = None
        return self

    def metadata_table(self) -> MetadataTable | None:
        """The metadata table as it goes with :attr:`timeline`, or None when the table has none.

        Opened once per loaded timeline: a read's listing and its data skipping share one snapshot
        (one open, one read of each MDT partition they use), and :meth:`reload` drops it with the
        timeline.

        Raises:
            MetadataTableUnusableError: The MDT exists but cannot be read (see
                :meth:`MetadataTable.open <hudi_framework.metadata.reader.MetadataTable.open>`).
        """
        timeline = self.timeline
        if self._metadata is None or self._metadata[0] is not timeline:
            self._metadata = (timeline, MetadataTable.open(self._storage, self._properties))
        return self._metadata[1]

    # ------------------------------------------------------------------ file layout
    def file_system_view(
        self,
        *,
        partitions: list[str] | None = None,
        check_files: bool = False,
        use_metadata: bool = False,
        archived: ArchivedTimeline | None = None,
    ) -> FileSystemView:
        """List the table and build the view of its file groups (timeline facts wired in).

        Args:
            partitions: Only these partitions; None lists the whole table.
            check_files: Also give the view the files the completed instants' commit metadata
                names, so that it slices what the timeline describes and
                :meth:`~hudi_framework.layout.fs_view.FileSystemView.check_files` finds the ones
                storage lacks (reads and writes ask for it; cleaning plans from the listing alone).
            use_metadata: Take the listing from the metadata table's ``files`` partition when it is
                usable (readers' ``hoodie.metadata.enable``); otherwise, and whenever it is in doubt,
                list storage (with a logged warning saying why).
            archived: The table's archived instants, for reads that reach before the active
                timeline (time travel to an archived instant): their completions, replacements and
                written files join the active timeline's. Without them, files older than the
                active timeline count as committed (Java's ``isBeforeTimelineStarts``).
        """
        timeline = self.timeline
        replaced = {
            FileGroupId(partition, file_id): inst.requested_time
            for (partition, file_id), inst in timeline.replaced_file_groups().items()
        }
        completed = timeline.completed()
        if archived is not None:
            completed = [*archived.instants, *completed]
            for (partition, file_id), inst in archived.replaced_file_groups().items():
                replaced.setdefault(FileGroupId(partition, file_id), inst.requested_time)
        start = timeline_start(timeline)
        pending: dict[FileGroupId, str] = {}
        for inst, plan in timeline.pending_compaction_plans().items():
            for op in plan.get("operations") or ():
                pending[FileGroupId(op.get("partitionPath") or "", op["fileId"])] = inst.requested_time
        timeline_files = self._timeline_files(partitions, archived) if check_files else None
        if use_metadata:
            from_mdt = metadata_listing(
                self._storage, self._properties, timeline, partitions, opened=self.metadata_table
            )
            if from_mdt is not None:
                named = timeline_files if timeline_files is not None else self._timeline_files(partitions, archived)
                view = FileSystemView(
                    from_mdt,
                    completed_instants=completed,
                    table_version=self._config.version,
                    replaced_file_groups=replaced,
                    pending_compactions=pending,
                    timeline_start=start,
                    timeline_files=named,
                )
                # A file of a latest slice that the timeline names but the MDT lacks: the MDT missed
                # a write, so its listing cannot be trusted.
                missing = view.missing_files(view.latest_file_slices())
                if not missing:
                    if check_files:
                        return view
                    return FileSystemView(
                        from_mdt,
                        completed_instants=completed,
                        table_version=self._config.version,
                        replaced_file_groups=replaced,
                        pending_compactions=pending,
                        timeline_start=start,
                    )
                warn_fallback(self._storage, f"it lacks {sorted(missing)[0]}, which the timeline names")
        return FileSystemView.from_storage(
            self._storage,
            partitions=partitions,
            completed_instants=completed,
            table_version=self._config.version,
            replaced_file_groups=replaced,
            pending_compactions=pending,
            timeline_start=start,
            timeline_files=timeline_files,
        )

    def _timeline_files(
        self, partitions: list[str] | None, archived: ArchivedTimeline | None = None
    ) -> dict[str, dict[str, str]]:
        """Partition -> file name -> the first completed write instant whose commit metadata names it."""
        timeline = self.timeline
        wanted = None if partitions is None else set(partitions)
        out: dict[str, dict[str, str]] = defaultdict(dict)
        written = timeline.written_files(timeline.commits_timeline())
        if archived is not None:
            written = {**archived.written_files(archived.commits_timeline()), **written}
        # In timeline order: a v6 log file appended by several delta commits maps to the first one,
        # from which on snapshots read it.
        for inst, files in written.items():
            for partition, name in files:
                if wanted is None or partition in wanted:
                    out[partition].setdefault(name, inst.requested_time)
        return out

    def _resolve_as_of(self, as_of: str | None) -> str | None:
        # The readers' rule: digit strings compare as they are, date-times in the timeline time zone.
        return resolve_instant_time(as_of, TimelineTimezone(self._config.timeline_timezone))

    def latest_file_slices(
        self, *, partition: str | None = None, as_of: str | None = None, check_format: bool = True
    ) -> list[FileSlice]:
        """The latest file slice of every live file group, as of an instant (default: now).

        Args:
            partition: Only this partition ("" for a non-partitioned table).
            as_of: An instant time; slices and replacements after it are ignored.
            check_format: Raise for base files in formats this project cannot read (Lance).

        Raises:
            UnsupportedFormatError: A base file is in an unsupported format.
            MissingDataFileError: A file of a slice is named by the timeline but not in storage.
            CleanedInstantError: ``as_of`` needs files that cleaning deleted.
        """
        view = self.file_system_view(partitions=[partition] if partition is not None else None, check_files=True)
        resolved = self._resolve_as_of(as_of)
        slices = view.latest_file_slices(partition, as_of=resolved)
        check_slice_files(self, view, slices, resolved)
        if check_format:
            self.check_base_file_format()
            check_base_file_formats(slices, SUPPORTED_BASE_FORMATS)
        return slices

    def check_base_file_format(self) -> None:
        """Raise if the table's declared base file format is one we do not read.

        Raises:
            UnsupportedFormatError: For example ``hoodie.table.base.file.format=LANCE``.
        """
        fmt = self._config.base_file_format.lower()
        if fmt not in SUPPORTED_BASE_FORMATS:
            raise UnsupportedFormatError(
                f"base file format {fmt!r} of table {self._config.name!r} is not supported "
                f"(supported: {', '.join(SUPPORTED_BASE_FORMATS)})"
            )

    def partitions(self) -> list[str]:
        """Partition paths that exist on storage (``[""]`` for a non-partitioned table with data)."""
        return self.file_system_view().partitions

    # ------------------------------------------------------------------ schema
    def latest_commit(self) -> Instant | None:
        """The latest completed commit/deltacommit/replacecommit."""
        return self.timeline.latest_completed_commit()

    def avro_schema(self) -> dict[str, Any] | None:
        """The table's Avro schema (no meta fields), as Java's ``TableSchemaResolver`` finds it.

        Order: the latest completed write's ``extraMetadata.schema``, else
        ``hoodie.table.create.schema``, else None (see :meth:`schema` for the base-file fallback).
        """
        for inst in reversed(self.timeline.commits_timeline()):
            if inst.action in WRITE_ACTIONS:
                md = self.timeline.read_commit_metadata(inst)
                text = (md.extra_metadata or {}).get("schema")
                if text:
                    parsed: dict[str, Any] = json.loads(text)
                    return parsed
        if self._config.create_schema:
            created: dict[str, Any] = json.loads(self._config.create_schema)
            return created
        return None

    def schema(self, *, with_meta_fields: bool = False) -> pa.Schema:
        """The table's data schema as Arrow.

        Falls back to the footer of a base file when neither commits nor the config carry a schema.

        Raises:
            TableError: The table has no schema yet (no commits, no create schema, no files).
        """
        avro = self.avro_schema()
        schema = avro_to_arrow(avro) if avro is not None else self._schema_from_base_file()
        data = pa.schema([f for f in schema if f.name not in META_FIELDS])
        if not with_meta_fields or not self._config.populate_meta_fields:
            return data
        return pa.schema([pa.field(n, pa.string()) for n in META_FIELDS] + list(data))

    def _schema_from_base_file(self) -> pa.Schema:
        for file_slice in self.latest_file_slices():
            key = file_slice.base_file_key
            if key:
                with open_parquet(self._storage, key) as parquet:
                    return parquet.schema_arrow
        raise TableError(f"table {self._config.name!r} has no schema yet (no commits and no create schema)")

    def __repr__(self) -> str:
        return (
            f"HudiTable(name={self._config.name!r}, type={self._config.table_type.value}, "
            f"version={self._config.version}, base={self.base_uri!r})"
        )


__all__ = ["PROPERTIES_KEY", "HudiTable"]
