"""``TableConfig``: the typed view of ``hoodie.properties``.

Only this module spells ``hoodie.*`` table keys (the merge keys a legacy payload class implies come from
:mod:`hudi_framework.vocabulary.payloads`). Keys it does not model are preserved verbatim in
``extra`` so rewriting a Java-written table never drops what Java put there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from hudi_framework.errors import TableVersionError
from hudi_framework.vocabulary.key_generators import key_generator_class, key_generator_type_of_class
from hudi_framework.vocabulary.merge_modes import (
    COMMIT_TIME_STRATEGY_ID,
    CUSTOM_STRATEGY_ID,
    EVENT_TIME_STRATEGY_ID,
    PAYLOAD_BASED_STRATEGY_ID,
    RecordMergeMode,
    strategy_of_mode,
)
from hudi_framework.vocabulary.payloads import (
    MERGE_PROPERTY_PREFIX,
    PARTIAL_UPDATE_MODE_KEY,
    default_payload_class,
    deprecated_payload_mode,
    legacy_payload_properties,
    payload_merge_mode,
)
from hudi_framework.vocabulary.table_types import TableType
from hudi_framework.vocabulary.table_versions import DEFAULT_TABLE_VERSION, SUPPORTED_TABLE_VERSIONS

#: Hudi 1.1 (v9) keeps a legacy payload class under this key instead of ``hoodie.compaction.payload.class``.
_LEGACY_PAYLOAD_KEY = "hoodie.table.legacy.payload.class"


def _split_list(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


def _bool(value: str | None, default: bool) -> bool:
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() == "true"


# Keys modelled by fields below; everything else lands in ``extra``.
_MODELLED = frozenset(
    {
        "hoodie.table.name", "hoodie.database.name", "hoodie.table.type", "hoodie.table.version",
        "hoodie.table.initial.version", "hoodie.timeline.layout.version", "hoodie.timeline.path",
        "hoodie.timeline.history.path", "hoodie.archivelog.folder", "hoodie.table.recordkey.fields",
        "hoodie.table.partition.fields", "hoodie.table.precombine.field", "hoodie.table.ordering.fields",
        "hoodie.table.keygenerator.class", "hoodie.table.keygenerator.type", "hoodie.table.create.schema",
        "hoodie.datasource.write.hive_style_partitioning", "hoodie.datasource.write.partitionpath.urlencode",
        "hoodie.datasource.write.drop.partition.columns", "hoodie.populate.meta.fields",
        "hoodie.table.base.file.format", "hoodie.table.log.file.format", "hoodie.record.merge.mode",
        "hoodie.record.merge.strategy.id", "hoodie.compaction.record.merger.strategy",
        "hoodie.compaction.payload.class", "hoodie.table.metadata.partitions", "hoodie.table.timeline.timezone",
        "hoodie.table.format", "hoodie.table.checksum", _LEGACY_PAYLOAD_KEY,
    }
)  # fmt: skip


@dataclass(frozen=True)
class TableConfig:
    """Persisted table settings (format section 1.3). Field docs name the ``hoodie.*`` key."""

    name: str  #: hoodie.table.name
    table_type: TableType = TableType.COPY_ON_WRITE  #: hoodie.table.type
    version: int = DEFAULT_TABLE_VERSION  #: hoodie.table.version
    database: str = "default"  #: hoodie.database.name
    initial_version: int | None = None  #: hoodie.table.initial.version (v8+)
    timeline_layout_version: int = 2  #: hoodie.timeline.layout.version (1 for v6)
    timeline_path: str = "timeline"  #: hoodie.timeline.path
    history_path: str = "history"  #: hoodie.timeline.history.path
    archive_folder: str = "archived"  #: hoodie.archivelog.folder
    record_key_fields: tuple[str, ...] = ()  #: hoodie.table.recordkey.fields
    #: hoodie.table.partition.fields, raw entries (CustomKeyGenerator may add ``:SIMPLE``/``:TIMESTAMP``).
    partition_fields_raw: tuple[str, ...] = ()
    ordering_fields: tuple[str, ...] = ()  #: hoodie.table.ordering.fields (v9) / precombine.field
    key_generator_type: str = "SIMPLE"  #: hoodie.table.keygenerator.type, or derived from .class
    create_schema: str | None = None  #: hoodie.table.create.schema (Avro JSON, no meta fields)
    hive_style_partitioning: bool = False  #: hoodie.datasource.write.hive_style_partitioning
    url_encode_partitions: bool = False  #: hoodie.datasource.write.partitionpath.urlencode
    drop_partition_columns: bool = False  #: hoodie.datasource.write.drop.partition.columns
    populate_meta_fields: bool = True  #: hoodie.populate.meta.fields
    base_file_format: str = "PARQUET"  #: hoodie.table.base.file.format
    log_file_format: str = "HOODIE_LOG"  #: hoodie.table.log.file.format
    merge_mode: RecordMergeMode | None = None  #: hoodie.record.merge.mode
    merge_strategy_id: str | None = None  #: hoodie.record.merge.strategy.id (or 0.x merger.strategy)
    payload_class: str | None = None  #: hoodie.compaction.payload.class
    metadata_partitions: tuple[str, ...] = ()  #: hoodie.table.metadata.partitions
    timeline_timezone: str = "LOCAL"  #: hoodie.table.timeline.timezone
    table_format: str | None = None  #: hoodie.table.format (v9: native)
    extra: Mapping[str, str] = field(default_factory=dict)  #: keys not modelled, kept verbatim

    # ------------------------------------------------------------------ derived
    @property
    def archive_directory(self) -> str:
        """Key of the archived timeline under the table's root: the ``archived/`` commits log
        (``hoodie.archivelog.folder``, layout 1) or the LSM history (``hoodie.timeline.history.path``
        under ``hoodie.timeline.path``, layout 2)."""
        if self.timeline_layout_version == 1:
            return f".hoodie/{self.archive_folder.strip('/')}"
        return f".hoodie/{self.timeline_path.strip('/')}/{self.history_path.strip('/')}"

    @property
    def partition_fields(self) -> tuple[str, ...]:
        """Partition field names without CustomKeyGenerator's ``:TYPE`` suffixes."""
        return tuple(f.split(":", 1)[0] for f in self.partition_fields_raw)

    @property
    def is_partitioned(self) -> bool:
        """Whether the table has partition fields."""
        return bool(self.partition_fields_raw)

    @property
    def is_mor(self) -> bool:
        """Whether the table is merge-on-read."""
        return self.table_type is TableType.MERGE_ON_READ

    @property
    def effective_merge_mode(self) -> RecordMergeMode:
        """The merge mode, inferred as Apache Hudi does when not persisted."""
        if self.merge_mode is not None:
            return self.merge_mode
        if self.payload_class:
            return payload_merge_mode(self.payload_class)
        if self.merge_strategy_id == EVENT_TIME_STRATEGY_ID and self.ordering_fields:
            return RecordMergeMode.EVENT_TIME_ORDERING
        if self.merge_strategy_id == COMMIT_TIME_STRATEGY_ID:
            return RecordMergeMode.COMMIT_TIME_ORDERING
        if self.merge_strategy_id and self.merge_strategy_id not in (EVENT_TIME_STRATEGY_ID, PAYLOAD_BASED_STRATEGY_ID):
            # A custom merger's UUID (persisted by every version, 0.x's merger.strategy key included).
            return RecordMergeMode.CUSTOM
        if self.version < 8:
            # 0.x tables without payload class default to OverwriteWithLatestAvroPayload semantics.
            return RecordMergeMode.COMMIT_TIME_ORDERING
        return RecordMergeMode.EVENT_TIME_ORDERING if self.ordering_fields else RecordMergeMode.COMMIT_TIME_ORDERING

    # ------------------------------------------------------------------ codec
    @classmethod
    def from_properties(cls, props: Mapping[str, str]) -> TableConfig:
        """Build from parsed ``hoodie.properties``.

        Raises:
            TableVersionError: Unsupported table version or a layout that contradicts it.
        """
        try:
            version = int(props.get("hoodie.table.version", "6"))
        except ValueError:
            raise TableVersionError(f"hoodie.table.version={props['hoodie.table.version']!r} is not a number") from None
        if version not in SUPPORTED_TABLE_VERSIONS:
            raise TableVersionError(
                f"table version {version} is not supported (supported: {', '.join(map(str, SUPPORTED_TABLE_VERSIONS))})"
            )
        layout = int(props.get("hoodie.timeline.layout.version", "1" if version < 8 else "2"))
        if (version < 8) != (layout == 1):
            raise TableVersionError(f"table version {version} with timeline layout {layout} is inconsistent")
        keygen = (
            props.get("hoodie.table.keygenerator.type")
            or key_generator_type_of_class(props.get("hoodie.table.keygenerator.class", ""))
            if (props.get("hoodie.table.keygenerator.type") or props.get("hoodie.table.keygenerator.class"))
            else ""
        )
        partitions = _split_list(props.get("hoodie.table.partition.fields"))
        if not keygen:
            keygen = "SIMPLE" if partitions else "NON_PARTITION"
        ordering = _split_list(props.get("hoodie.table.ordering.fields") or props.get("hoodie.table.precombine.field"))
        mode = props.get("hoodie.record.merge.mode")
        initial = props.get("hoodie.table.initial.version")
        return cls(
            name=props["hoodie.table.name"],
            table_type=TableType(props.get("hoodie.table.type", "COPY_ON_WRITE").upper()),
            version=version,
            database=props.get("hoodie.database.name", ""),
            initial_version=int(initial) if initial else None,
            timeline_layout_version=layout,
            timeline_path=props.get("hoodie.timeline.path", "timeline"),
            history_path=props.get("hoodie.timeline.history.path", "history"),
            archive_folder=props.get("hoodie.archivelog.folder", "archived"),
            record_key_fields=_split_list(props.get("hoodie.table.recordkey.fields")),
            partition_fields_raw=partitions,
            ordering_fields=ordering,
            key_generator_type=keygen.upper(),
            create_schema=props.get("hoodie.table.create.schema"),
            hive_style_partitioning=_bool(props.get("hoodie.datasource.write.hive_style_partitioning"), False),
            url_encode_partitions=_bool(props.get("hoodie.datasource.write.partitionpath.urlencode"), False),
            drop_partition_columns=_bool(props.get("hoodie.datasource.write.drop.partition.columns"), False),
            populate_meta_fields=_bool(props.get("hoodie.populate.meta.fields"), True),
            base_file_format=props.get("hoodie.table.base.file.format", "PARQUET").upper(),
            log_file_format=props.get("hoodie.table.log.file.format", "HOODIE_LOG").upper(),
            merge_mode=RecordMergeMode(mode.upper()) if mode else None,
            merge_strategy_id=props.get("hoodie.record.merge.strategy.id")
            or props.get("hoodie.compaction.record.merger.strategy"),
            payload_class=props.get("hoodie.compaction.payload.class") or props.get(_LEGACY_PAYLOAD_KEY),
            metadata_partitions=_split_list(props.get("hoodie.table.metadata.partitions")),
            timeline_timezone=props.get("hoodie.table.timeline.timezone", "LOCAL").upper(),
            table_format=props.get("hoodie.table.format"),
            extra={k: v for k, v in props.items() if k not in _MODELLED},
        )

    def to_properties(self) -> dict[str, str]:
        """Render the keys Apache Hudi writes for this table version (checksum added on write)."""
        v = self.version
        p: dict[str, str] = dict(self.extra)
        p["hoodie.table.name"] = self.name
        p["hoodie.database.name"] = self.database
        p["hoodie.table.type"] = self.table_type.value
        p["hoodie.table.version"] = str(v)
        p["hoodie.timeline.layout.version"] = "1" if v < 8 else "2"
        p["hoodie.archivelog.folder"] = self.archive_folder
        p["hoodie.table.recordkey.fields"] = ",".join(self.record_key_fields)
        if self.partition_fields_raw:
            # Custom key generator types (``region:SIMPLE``) are persisted from version 8 on (HUDI-7996);
            # Hudi 0.x persisted the names only and reads ``region:SIMPLE`` as a column name.
            fields = self.partition_fields_raw if v >= 8 else self.partition_fields
            p["hoodie.table.partition.fields"] = ",".join(fields)
        if self.create_schema:
            p["hoodie.table.create.schema"] = self.create_schema
        p["hoodie.datasource.write.hive_style_partitioning"] = str(self.hive_style_partitioning).lower()
        p["hoodie.datasource.write.partitionpath.urlencode"] = str(self.url_encode_partitions).lower()
        p["hoodie.datasource.write.drop.partition.columns"] = str(self.drop_partition_columns).lower()
        if not self.populate_meta_fields:
            p["hoodie.populate.meta.fields"] = "false"
        if self.base_file_format != "PARQUET":
            p["hoodie.table.base.file.format"] = self.base_file_format
        if self.timeline_timezone != "LOCAL":
            p["hoodie.table.timeline.timezone"] = self.timeline_timezone
        if self.metadata_partitions:
            p["hoodie.table.metadata.partitions"] = ",".join(self.metadata_partitions)
        mode = self.effective_merge_mode
        ordering = ",".join(self.ordering_fields)
        if v < 8:
            p["hoodie.table.keygenerator.class"] = key_generator_class(self.key_generator_type)
            if ordering:
                p["hoodie.table.precombine.field"] = ordering
            payload = self.payload_class or default_payload_class(mode)
            if payload:
                p["hoodie.compaction.payload.class"] = payload
            if self.merge_strategy_id or mode is RecordMergeMode.EVENT_TIME_ORDERING:
                p["hoodie.compaction.record.merger.strategy"] = self.merge_strategy_id or EVENT_TIME_STRATEGY_ID
        else:
            p["hoodie.table.initial.version"] = str(self.initial_version or v)
            p["hoodie.timeline.path"] = self.timeline_path
            p["hoodie.timeline.history.path"] = self.history_path
            p["hoodie.table.keygenerator.type"] = self.key_generator_type
            p["hoodie.record.merge.mode"] = mode.value
            if v == 8:
                if ordering:
                    p["hoodie.table.precombine.field"] = ordering
                p["hoodie.record.merge.strategy.id"] = self.merge_strategy_id or _default_strategy(
                    mode, payload_based=bool(self.payload_class)
                )
                payload = self.payload_class or default_payload_class(mode)
                if payload:
                    p["hoodie.compaction.payload.class"] = payload
            else:
                if ordering:
                    p["hoodie.table.ordering.fields"] = ordering
                if mode is not RecordMergeMode.CUSTOM and deprecated_payload_mode(self.payload_class) is not None:
                    # A deprecated payload: its mode's own strategy id and the class as the legacy one.
                    p["hoodie.record.merge.strategy.id"] = self.merge_strategy_id or _default_strategy(mode)
                    p[_LEGACY_PAYLOAD_KEY] = str(self.payload_class)
                elif mode is RecordMergeMode.CUSTOM:
                    if self.payload_class and deprecated_payload_mode(self.payload_class) is None:
                        # Any other payload class: a CUSTOM payload table (PAYLOAD_BASED strategy).
                        p["hoodie.compaction.payload.class"] = self.payload_class
                        p["hoodie.record.merge.strategy.id"] = self.merge_strategy_id or PAYLOAD_BASED_STRATEGY_ID
                    else:
                        if self.merge_strategy_id:
                            p["hoodie.record.merge.strategy.id"] = self.merge_strategy_id
                        if self.payload_class:  # a CUSTOM table of an earlier release of this project
                            p[_LEGACY_PAYLOAD_KEY] = self.payload_class
                p["hoodie.table.format"] = self.table_format or "native"
        return p

    def with_updates(self, **changes: object) -> TableConfig:
        """A copy with fields replaced."""
        return replace(self, **changes)  # type: ignore[arg-type]


def _default_strategy(mode: RecordMergeMode, *, payload_based: bool = False) -> str:
    if mode is RecordMergeMode.CUSTOM and payload_based:
        return PAYLOAD_BASED_STRATEGY_ID
    return strategy_of_mode(mode)


def new_table_config(
    name: str,
    *,
    table_type: TableType | str = TableType.COPY_ON_WRITE,
    version: int = DEFAULT_TABLE_VERSION,
    record_key_fields: Sequence[str],
    partition_fields: Sequence[str] = (),
    ordering_fields: Sequence[str] = (),
    key_generator_type: str | None = None,
    hive_style_partitioning: bool = False,
    url_encode_partitions: bool = False,
    populate_meta_fields: bool = True,
    create_schema: str | None = None,
    merge_mode: RecordMergeMode | str | None = None,
    merge_strategy_id: str | None = None,
    payload_class: str | None = None,
    database: str = "default",
    timeline_timezone: str = "LOCAL",
    extra: Mapping[str, str] | None = None,
) -> TableConfig:
    """Config of a new table, with Apache Hudi's inference for the key generator and merge mode.

    The merge mode, when not given, comes from the strategy id or payload class, else from whether
    there are ordering fields (hudi-format.md section 6.1). ``merge_strategy_id`` is persisted for
    ``CUSTOM`` tables (a built-in mode's own UUID is implied); ``payload_class`` is the legacy one.

    Raises:
        TableVersionError: ``version`` is not one we write.
    """
    if version not in SUPPORTED_TABLE_VERSIONS:
        raise TableVersionError(f"cannot create a table at version {version}; choose one of {SUPPORTED_TABLE_VERSIONS}")
    table_type = TableType(table_type)
    keygen = (key_generator_type or "").upper()
    if not keygen:
        if not partition_fields:
            keygen = "NON_PARTITION"
        elif len(record_key_fields) > 1 or len(partition_fields) > 1:
            keygen = "COMPLEX"
        else:
            keygen = "SIMPLE"
    mode, strategy, merge_extra = _merge_fields(
        version, tuple(ordering_fields), merge_mode=merge_mode, merge_strategy_id=merge_strategy_id,
        payload_class=payload_class,
    )  # fmt: skip
    extra = {**merge_extra, **(extra or {})}
    return TableConfig(
        name=name,
        table_type=table_type,
        version=version,
        database=database,
        initial_version=version if version >= 8 else None,
        timeline_layout_version=1 if version < 8 else 2,
        record_key_fields=tuple(record_key_fields),
        partition_fields_raw=tuple(partition_fields),
        ordering_fields=tuple(ordering_fields),
        key_generator_type=keygen,
        create_schema=create_schema,
        hive_style_partitioning=hive_style_partitioning,
        url_encode_partitions=url_encode_partitions,
        populate_meta_fields=populate_meta_fields,
        merge_mode=mode,
        merge_strategy_id=strategy,
        payload_class=payload_class,
        timeline_timezone=timeline_timezone.upper(),
        table_format="native" if version >= 9 else None,
        extra=dict(extra or {}),
    )


def with_merge_behaviour(
    config: TableConfig,
    *,
    merge_mode: RecordMergeMode | str | None = None,
    merge_strategy_id: str | None = None,
    payload_class: str | None = None,
) -> TableConfig:
    """``config`` with another merge mode, strategy and payload class, inferred as for a new table.

    For a table nothing was written to yet: its first write may choose how records merge.
    """
    mode, strategy, merge_extra = _merge_fields(
        config.version, config.ordering_fields, merge_mode=merge_mode, merge_strategy_id=merge_strategy_id,
        payload_class=payload_class,
    )  # fmt: skip
    merge_keys = (PARTIAL_UPDATE_MODE_KEY, MERGE_PROPERTY_PREFIX)  # written from the payload class
    kept = {k: v for k, v in config.extra.items() if not k.startswith(merge_keys)}
    return config.with_updates(
        merge_mode=mode, merge_strategy_id=strategy, payload_class=payload_class, extra={**merge_extra, **kept}
    )


def _merge_fields(
    version: int,
    ordering_fields: tuple[str, ...],
    *,
    merge_mode: RecordMergeMode | str | None,
    merge_strategy_id: str | None,
    payload_class: str | None,
) -> tuple[RecordMergeMode, str | None, dict[str, str]]:
    """The merge mode, persisted strategy id and extra properties of a new table (Apache Hudi's inference)."""
    mode: RecordMergeMode
    extra: dict[str, str] = {}
    legacy_mode = deprecated_payload_mode(payload_class) if version >= 9 else None
    builtin_ids = (None, EVENT_TIME_STRATEGY_ID, COMMIT_TIME_STRATEGY_ID, CUSTOM_STRATEGY_ID, PAYLOAD_BASED_STRATEGY_ID)
    if legacy_mode is not None and ((merge_strategy_id or "").lower() or None) in builtin_ids:
        # Hudi 1.1 maps the deprecated payloads onto a merge mode (plus partial-update mode and merge
        # properties) and keeps the class as the legacy one.
        mode, merge_strategy_id = legacy_mode, None
        extra = legacy_payload_properties(str(payload_class))
    elif merge_mode is not None:
        mode = RecordMergeMode(str(merge_mode).upper())
    else:
        probe = TableConfig(
            name="probe", version=max(version, 8), ordering_fields=ordering_fields,
            merge_strategy_id=merge_strategy_id, payload_class=payload_class,
        )  # fmt: skip
        mode = probe.effective_merge_mode
    strategy = merge_strategy_id.lower() if merge_strategy_id else None
    if mode is not RecordMergeMode.CUSTOM and strategy in (EVENT_TIME_STRATEGY_ID, COMMIT_TIME_STRATEGY_ID):
        strategy = None  # implied by the mode, and persisted by the version's own rules
    return mode, strategy, extra
