"""Apache Hudi option keys (``hoodie.*``) mapped onto typed settings fields, and back.

Users can hand over the option dict they already pass to Apache Hudi's Spark datasource. Each known
key maps to one field path with a value conversion (:data:`HOODIE_KEYS`); several keys may map to one
field (Apache Hudi renamed many keys across releases). Keys Apache Hudi accepts that have no effect
here are listed explicitly with the reason (:data:`IGNORED_KEYS`); anything else is an unknown key.
Matching is case-insensitive because Spark lower-cases option keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final

from hudi_framework.config.hoodie_values import parse_csv, parse_scalar, render_csv, render_scalar
from hudi_framework.config.not_yet import METADATA_TABLE
from hudi_framework.config.paths import Path, close_matches
from hudi_framework.config.s3 import (
    parse_credentials_providers,
    parse_path_style,
    parse_s3a_endpoint,
    render_credentials_providers,
    render_path_style,
)
from hudi_framework.vocabulary import COMPACTION_STRATEGIES, INDEX_TYPES, KEY_GENERATORS, LOCK_PROVIDERS

__all__ = [
    "HOODIE_KEYS",
    "IGNORED_KEYS",
    "HoodieKey",
    "get_path",
    "ignored_value_reason",
    "is_ignored",
    "lookup",
    "sets_storage",
    "suggest",
]


@dataclass(frozen=True, slots=True)
class HoodieKey:
    """One settings field and the Apache Hudi option keys that set it.

    Attributes:
        keys: Accepted keys; the first is the one :meth:`HudiSettings.to_hoodie_options` writes.
        path: The settings field path the value goes to.
        parse: Converts an option value to what the field validates.
        render: Converts the field value back to an option value (None: nothing to write).
        secret: The value is a secret: never exported, never echoed.
    """

    keys: tuple[str, ...]
    path: Path
    parse: Callable[[object], object] = parse_scalar
    render: Callable[[object], str | None] = render_scalar
    secret: bool = False

    @property
    def key(self) -> str:
        """The canonical key."""
        return self.keys[0]


def _k(
    path: str,
    *keys: str,
    parse: Callable[[object], object] = parse_scalar,
    render: Callable[[object], str | None] = render_scalar,
    secret: bool = False,
) -> HoodieKey:
    return HoodieKey(tuple(keys), tuple(path.split(".")), parse, render, secret)


def _csv(path: str, *keys: str) -> HoodieKey:
    return _k(path, *keys, parse=parse_csv, render=render_csv)


def _family(prefix: str, path: str, names: tuple[str, ...]) -> Iterator[HoodieKey]:
    # Provider-specific options go to the component's free ``options`` under the key's last part;
    # the plugin's own options model validates them.
    for name in names:
        yield _k(f"{path}.{name}", f"{prefix}{name}")


def _s3a(
    path: str,
    name: str,
    *extra: str,
    parse: Callable[[object], object] = parse_scalar,
    render: Callable[[object], str | None] = render_scalar,
    secret: bool = False,
) -> HoodieKey:
    # Hadoop S3A's key first (what Spark and Apache Hudi's Java writers read for S3 storage), then
    # Apache Hudi's own spelling if any, then the session-config form users copy from spark-defaults.
    keys = (f"fs.s3a.{name}", *extra, f"spark.hadoop.fs.s3a.{name}")
    return _k(path, *keys, parse=parse, render=render, secret=secret)


_KEYGEN_TS = "hoodie.keygen.timebased."
_DYNAMODB = "hoodie.write.lock.dynamodb."

#: Every known Apache Hudi option key, grouped by settings section.
HOODIE_KEYS: Final[tuple[HoodieKey, ...]] = (
    # ------------------------------------------------------------------ table
    _k("table.base_path", "hoodie.base.path", "path"),
    _k("table.name", "hoodie.table.name"),
    _k("table.database", "hoodie.database.name"),
    _k("table.type", "hoodie.datasource.write.table.type", "hoodie.table.type"),
    _k("table.version", "hoodie.write.table.version", "hoodie.table.version"),
    _csv("table.record_key_fields", "hoodie.datasource.write.recordkey.field", "hoodie.table.recordkey.fields"),
    _csv(
        "table.partition_fields",
        "hoodie.datasource.write.partitionpath.field",
        "hoodie.table.partition.fields",
    ),
    # precombine.field is understood by every Apache Hudi release; ordering.fields only by 1.1+.
    _csv(
        "table.ordering_fields",
        "hoodie.datasource.write.precombine.field",
        "hoodie.table.ordering.fields",
        "hoodie.table.precombine.field",
    ),
    _k(
        "table.key_generator.name",
        "hoodie.datasource.write.keygenerator.type",
        "hoodie.datasource.write.keygenerator.class",
        "hoodie.table.keygenerator.type",
        "hoodie.table.keygenerator.class",
        parse=KEY_GENERATORS.parse,
        render=KEY_GENERATORS.render,
    ),
    _k("table.hive_style_partitioning", "hoodie.datasource.write.hive_style_partitioning"),
    _k("table.url_encode_partitions", "hoodie.datasource.write.partitionpath.urlencode"),
    _k("table.drop_partition_columns", "hoodie.datasource.write.drop.partition.columns"),
    _k("table.populate_meta_fields", "hoodie.populate.meta.fields"),
    _k("table.base_file_format", "hoodie.table.base.file.format"),
    _k("table.timeline_timezone", "hoodie.table.timeline.timezone"),
    _k("table.keygen_timestamp.timestamp_type", f"{_KEYGEN_TS}timestamp.type"),
    _k("table.keygen_timestamp.scalar_time_unit", f"{_KEYGEN_TS}timestamp.scalar.time.unit"),
    _k("table.keygen_timestamp.input_dateformat", f"{_KEYGEN_TS}input.dateformat"),
    _k(
        "table.keygen_timestamp.input_dateformat_list_delimiter_regex",
        f"{_KEYGEN_TS}input.dateformat.list.delimiter.regex",
    ),
    _k("table.keygen_timestamp.input_timezone", f"{_KEYGEN_TS}input.timezone"),
    _k("table.keygen_timestamp.output_dateformat", f"{_KEYGEN_TS}output.dateformat"),
    _k("table.keygen_timestamp.output_timezone", f"{_KEYGEN_TS}output.timezone"),
    _k("table.keygen_timestamp.timezone", f"{_KEYGEN_TS}timezone"),
    # ------------------------------------------------------------------ write
    _k("write.operation", "hoodie.datasource.write.operation"),
    _k("write.small_file_limit_bytes", "hoodie.parquet.small.file.limit"),
    _k("write.max_file_size_bytes", "hoodie.parquet.max.file.size"),
    _k("write.record_size_estimate", "hoodie.copyonwrite.record.size.estimate"),
    _k("write.insert_split_size", "hoodie.copyonwrite.insert.split.size"),
    _k("write.log_file_max_size_bytes", "hoodie.logfile.max.size"),
    _k("write.log_data_block_format", "hoodie.logfile.data.block.format"),
    _k("write.write_record_positions", "hoodie.write.record.positions"),
    _k("write.set_null_for_missing_columns", "hoodie.write.set.null.for.missing.columns"),
    _k("write.avro_schema_validate", "hoodie.avro.schema.validate"),
    _k("write.reconcile_schema", "hoodie.datasource.write.reconcile.schema"),
    _k("write.schema_on_read_enable", "hoodie.schema.on.read.enable"),
    _k(
        "write.schema_allow_auto_evolution_column_drop",
        "hoodie.datasource.write.schema.allow.auto.evolution.column.drop",
    ),
    _k("write.metadata_enable", "hoodie.metadata.enable"),
    _k("write.metadata_compact_max_delta_commits", "hoodie.metadata.compact.max.delta.commits"),
    _k("write.metadata_bloom_filter_enable", "hoodie.metadata.index.bloom.filter.enable"),
    _k("write.metadata_bloom_filter_file_groups", "hoodie.metadata.index.bloom.filter.file.group.count"),
    _k("write.metadata_column_stats_enable", "hoodie.metadata.index.column.stats.enable"),
    _csv("write.metadata_column_stats_columns", "hoodie.metadata.index.column.stats.column.list"),
    _k("write.metadata_column_stats_max_columns", "hoodie.metadata.index.column.stats.max.columns.to.index"),
    _k("write.metadata_column_stats_file_groups", "hoodie.metadata.index.column.stats.file.group.count"),
    _k("write.metadata_partition_stats_file_groups", "hoodie.metadata.index.partition.stats.file.group.count"),
    _k(
        "write.metadata_record_index_enable",
        "hoodie.metadata.record.index.enable",
        "hoodie.metadata.global.record.level.index.enable",
    ),
    _k(
        "write.metadata_record_index_min_file_groups",
        "hoodie.metadata.record.index.min.filegroup.count",
        "hoodie.metadata.global.record.level.index.min.filegroup.count",
    ),
    _k(
        "write.metadata_record_index_max_file_groups",
        "hoodie.metadata.record.index.max.filegroup.count",
        "hoodie.metadata.global.record.level.index.max.filegroup.count",
    ),
    _k("write.small_file_group_candidates_limit", "hoodie.merge.small.file.group.candidates.limit"),
    _k("write.log_to_parquet_compression_ratio", "hoodie.logfile.to.parquet.compression.ratio"),
    _k("write.parquet_compression_codec", "hoodie.parquet.compression.codec"),
    _k("write.concurrency_mode", "hoodie.write.concurrency.mode"),
    _k(
        "write.failed_writes_policy",
        "hoodie.clean.failed.writes.policy",
        "hoodie.cleaner.policy.failed.writes",
    ),
    _k("write.heartbeat_interval_ms", "hoodie.client.heartbeat.interval_in_ms"),
    _k("write.heartbeat_tolerable_misses", "hoodie.client.heartbeat.tolerable.misses"),
    _k("write.combine_before_insert", "hoodie.combine.before.insert"),
    _k("write.combine_before_upsert", "hoodie.combine.before.upsert"),
    _k("write.combine_before_delete", "hoodie.combine.before.delete"),
    _k("write.insert_drop_duplicates", "hoodie.datasource.write.insert.drop.duplicates"),
    _k("write.insert_dup_policy", "hoodie.datasource.insert.dup.policy"),
    _k("write.merge_allow_duplicate_on_inserts", "hoodie.merge.allow.duplicate.on.inserts"),
    _csv("write.partitions_to_delete", "hoodie.datasource.write.partitions.to.delete"),
    # ------------------------------------------------------------------ read
    _k("read.query_type", "hoodie.datasource.query.type"),
    _k("read.begin_instant", "hoodie.datasource.read.begin.instanttime"),
    _k("read.end_instant", "hoodie.datasource.read.end.instanttime"),
    _k("read.as_of_instant", "as.of.instant"),
    _k("read.use_record_positions", "hoodie.merge.use.record.positions"),
    _k("read.data_skipping", "hoodie.enable.data.skipping"),
    _k("read.data_skipping_source", "data.skipping.source"),
    # ------------------------------------------------------------------ index
    _k("index.type", "hoodie.index.type", parse=INDEX_TYPES.parse, render=INDEX_TYPES.render),
    _k("index.options.num_entries", "hoodie.index.bloom.num_entries"),
    _k("index.options.fpp", "hoodie.index.bloom.fpp"),
    _k("index.options.filter_type", "hoodie.bloom.index.filter.type"),
    _k("index.options.dynamic_max_entries", "hoodie.bloom.index.filter.dynamic.max.entries"),
    _k("index.options.prune_by_ranges", "hoodie.bloom.index.prune.by.ranges"),
    _k("index.options.use_metadata", "hoodie.bloom.index.use.metadata"),
    # Java has one key per global index family; both set the index's option (exported as both, so a
    # Java writer gets it whichever index it runs), and two different values are a conflict.
    _k("index.options.update_partition_path", "hoodie.bloom.index.update.partition.path"),
    _k("index.options.update_partition_path", "hoodie.simple.index.update.partition.path"),
    _k("index.options.update_partition_path", "hoodie.record.index.update.partition.path"),
    # ------------------------------------------------------------------ merger
    _k("merger.mode", "hoodie.write.record.merge.mode", "hoodie.record.merge.mode"),
    _k(
        "merger.strategy_id",
        "hoodie.write.record.merge.strategy.id",
        "hoodie.record.merge.strategy.id",
        "hoodie.datasource.write.record.merger.strategy",
        "hoodie.compaction.record.merger.strategy",
    ),
    _csv(
        "merger.implementation_classes",
        "hoodie.write.record.merge.custom.implementation.classes",
        "hoodie.datasource.write.record.merger.impls",
    ),
    _k("merger.payload_class", "hoodie.datasource.write.payload.class", "hoodie.compaction.payload.class"),
    _k("merger.max_memory_bytes", "hoodie.memory.merge.max.size"),
    # ------------------------------------------------------------------ lock
    _k(
        "lock.provider",
        "hoodie.write.lock.provider",
        parse=LOCK_PROVIDERS.parse,
        render=LOCK_PROVIDERS.render,
    ),
    _k("lock.wait_time_ms", "hoodie.write.lock.wait_time_ms"),
    _k("lock.num_retries", "hoodie.write.lock.num_retries"),
    _k("lock.retry_wait_time_ms", "hoodie.write.lock.wait_time_ms_between_retry"),
    _k("lock.max_retry_wait_time_ms", "hoodie.write.lock.max_wait_time_ms_between_retry"),
    *_family(
        _DYNAMODB,
        "lock.options",
        (
            "table",
            "partition_key",
            "region",
            "endpoint_url",
            "billing_mode",
            "read_capacity",
            "write_capacity",
            "table_creation_timeout",
        ),
    ),
    _k("lock.options.validity_timeout_secs", "hoodie.write.lock.storage.validity.timeout.secs"),
    _k("lock.options.path", "hoodie.write.lock.filesystem.path"),
    _k("lock.options.expire", "hoodie.write.lock.filesystem.expire"),
    _k(
        "lock.options.renew_interval_secs",
        "hoodie.write.lock.storage.renew.interval.secs",
        "hoodie.write.lock.storage.heartbeat.poll.secs",
    ),
    # ------------------------------------------------------------------ storage
    _s3a("storage.s3.endpoint_url", "endpoint", parse=parse_s3a_endpoint),
    _s3a("storage.s3.region", "endpoint.region"),
    _s3a("storage.s3.addressing_style", "path.style.access", parse=parse_path_style, render=render_path_style),
    _s3a("storage.s3.access_key_id", "access.key", "hoodie.aws.access.key", secret=True),
    _s3a("storage.s3.secret_access_key", "secret.key", "hoodie.aws.secret.key", secret=True),
    _s3a("storage.s3.session_token", "session.token", "hoodie.aws.session.token", secret=True),
    _s3a(
        "storage.s3.credentials_provider",
        "aws.credentials.provider",
        parse=parse_credentials_providers,
        render=render_credentials_providers,
    ),
    # ------------------------------------------------------------------ services
    # ------------------------------------------------------------------ streamer
    _k("streamer.transformer_sql", "hoodie.streamer.transformer.sql", "hoodie.deltastreamer.transformer.sql"),
    _k(
        "streamer.schema_file",
        "hoodie.streamer.schemaprovider.source.schema.file",
        "hoodie.deltastreamer.schemaprovider.source.schema.file",
    ),
    _k("services.compaction.inline", "hoodie.compact.inline"),
    _k("services.compaction.schedule_inline", "hoodie.compact.schedule.inline"),
    _k("services.compaction.trigger_strategy", "hoodie.compact.inline.trigger.strategy"),
    _k("services.compaction.max_delta_commits", "hoodie.compact.inline.max.delta.commits"),
    _k("services.compaction.max_delta_seconds", "hoodie.compact.inline.max.delta.seconds"),
    _k(
        "services.compaction.strategy.name",
        "hoodie.compaction.strategy",
        parse=COMPACTION_STRATEGIES.parse,
        render=COMPACTION_STRATEGIES.render,
    ),
    _k("services.compaction.target_io_mb", "hoodie.compaction.target.io"),
    _k("services.compaction.logfile_size_threshold_bytes", "hoodie.compaction.logfile.size.threshold"),
    _k("services.compaction.logfile_num_threshold", "hoodie.compaction.logfile.num.threshold"),
    _k("services.compaction.daybased_target_partitions", "hoodie.compaction.daybased.target.partitions"),
    _k("services.log_compaction.inline", "hoodie.log.compaction.inline"),
    _k("services.log_compaction.blocks_threshold", "hoodie.log.compaction.blocks.threshold"),
    _k("services.clean.automatic", "hoodie.clean.automatic"),
    _k("services.clean.async_enabled", "hoodie.clean.async.enabled", "hoodie.clean.async"),
    _k("services.clean.policy", "hoodie.clean.policy", "hoodie.cleaner.policy"),
    _k("services.clean.commits_retained", "hoodie.clean.commits.retained", "hoodie.cleaner.commits.retained"),
    _k(
        "services.clean.file_versions_retained",
        "hoodie.clean.fileversions.retained",
        "hoodie.cleaner.fileversions.retained",
    ),
    _k("services.clean.hours_retained", "hoodie.clean.hours.retained", "hoodie.cleaner.hours.retained"),
    _k("services.clean.max_commits", "hoodie.clean.max.commits"),
    _k("services.clean.incremental", "hoodie.clean.incremental.enabled", "hoodie.cleaner.incremental.mode"),
    _k("services.archive.automatic", "hoodie.archive.automatic"),
    _k("services.archive.async_enabled", "hoodie.archive.async"),
    _k("services.archive.min_commits", "hoodie.keep.min.commits"),
    _k("services.archive.max_commits", "hoodie.keep.max.commits"),
    _k("services.archive.timeline_compaction_batch_size", "hoodie.timeline.compaction.batch.size"),
    _k("services.clustering.inline", "hoodie.clustering.inline"),
    _k("services.clustering.schedule_inline", "hoodie.clustering.schedule.inline"),
    _k("services.clustering.async_enabled", "hoodie.clustering.async.enabled"),
    _k("services.clustering.max_commits", "hoodie.clustering.inline.max.commits"),
    _k("services.clustering.small_file_limit_bytes", "hoodie.clustering.plan.strategy.small.file.limit"),
    _k("services.clustering.target_file_max_bytes", "hoodie.clustering.plan.strategy.target.file.max.bytes"),
    _csv("services.clustering.sort_columns", "hoodie.clustering.plan.strategy.sort.columns"),
    _k("services.clustering.async_max_commits", "hoodie.clustering.async.max.commits"),
    _k("services.clustering.update_strategy", "hoodie.clustering.updates.strategy"),
    _k("services.clustering.max_bytes_per_group", "hoodie.clustering.plan.strategy.max.bytes.per.group"),
    _k("services.clustering.max_num_groups", "hoodie.clustering.plan.strategy.max.num.groups"),
    _k("services.clustering.layout_optimize_strategy", "hoodie.layout.optimize.strategy"),
    _k("services.clustering.layout_optimize_build_method", "hoodie.layout.optimize.curve.build.method"),
    _k("services.clustering.layout_optimize_sample_size", "hoodie.layout.optimize.build.curve.sample.size"),
    _k("services.clustering.preserve_commit_metadata", "hoodie.clustering.preserve.commit.metadata"),
    _k(
        "services.clustering.single_group_clustering_enabled",
        "hoodie.clustering.plan.strategy.single.group.clustering.enabled",
    ),
    _k("services.clustering.partition_regex_pattern", "hoodie.clustering.plan.strategy.partition.regex.pattern"),
    _csv("services.clustering.partition_selected", "hoodie.clustering.plan.strategy.partition.selected"),
)

_MDT_INDEX = "this metadata table index is not written (docs/metadata-table.md)"
_PARALLELISM = "Spark parallelism comes from write.parallelism"

#: Keys Apache Hudi accepts that are recognised here but have no effect, with the reason. Anything
#: neither here nor in :data:`HOODIE_KEYS` is rejected, so a typo never passes silently.
IGNORED_KEYS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "hoodie.metadata.index.partition.stats.enable": (
            "partition_stats follows hoodie.metadata.index.column.stats.enable, as in Apache Hudi 1.1"
        ),
        "hoodie.metadata.record.level.index.enable": _MDT_INDEX,
        "hoodie.datasource.write.table.name": "a Spark catalog name; the table name is hoodie.table.name",
        "hoodie.upsert.shuffle.parallelism": _PARALLELISM,
        "hoodie.insert.shuffle.parallelism": _PARALLELISM,
        "hoodie.bulkinsert.shuffle.parallelism": _PARALLELISM,
        "hoodie.delete.shuffle.parallelism": _PARALLELISM,
        "hoodie.cleaner.parallelism": _PARALLELISM,
        "hoodie.clean.trigger.strategy": "NUM_COMMITS (hoodie.clean.max.commits) is the only clean trigger",
        "hoodie.embed.timeline.server": "there is no timeline server; executors read the timeline directly",
        "hoodie.write.markers.type": "markers are always written directly to storage",
        "hoodie.datasource.compaction.async.enable": (
            "applies to Apache Hudi's streaming sink, whose writeStream here refuses true; "
            "use services.compaction.inline or schedule_inline"
        ),
        "hoodie.clustering.plan.strategy.class": (
            "clustering plans are made by the service services.clustering.service names (size-based)"
        ),
        "hoodie.clustering.execution.strategy.class": "clustering rewrites rows as SparkSortAndSizeExecutionStrategy",
    }
)

#: Ignored keys that are honest only with the values listed (lower case): the behaviour we have.
#: Any other value asks for a feature that does not exist here; it is refused, naming the roadmap
#: item that brings it (if any).
IGNORED_UNLESS: Final[Mapping[str, tuple[tuple[str, ...], str | None]]] = MappingProxyType(
    {
        "hoodie.metadata.record.level.index.enable": (("false",), METADATA_TABLE),
        "hoodie.clean.trigger.strategy": (("num_commits",), None),
        # Apache Hudi's TIMELINE_SERVER_BASED needs its timeline server (hoodie.embed.timeline.server).
        "hoodie.write.markers.type": (("direct",), None),
        "hoodie.clustering.plan.strategy.class": (
            ("org.apache.hudi.client.clustering.plan.strategy.sparksizebasedclusteringplanstrategy",),
            None,
        ),
        "hoodie.clustering.execution.strategy.class": (
            ("org.apache.hudi.client.clustering.run.strategy.sparksortandsizeexecutionstrategy",),
            None,
        ),
    }
)

_BY_KEY: Final[Mapping[str, HoodieKey]] = MappingProxyType(
    {key.lower(): entry for entry in HOODIE_KEYS for key in entry.keys}
)
_IGNORED_LOWER: Final = frozenset(k.lower() for k in IGNORED_KEYS)
_UNLESS_LOWER: Final = {k.lower(): (k, *v) for k, v in IGNORED_UNLESS.items()}
_ALL_KEYS: Final = tuple(sorted({*(k for e in HOODIE_KEYS for k in e.keys), *IGNORED_KEYS}))


def lookup(key: str) -> HoodieKey | None:
    """The mapping entry of an Apache Hudi option key (any case), or None."""
    return _BY_KEY.get(key.strip().lower())


def sets_storage(key: str) -> bool:
    """Whether ``key`` (an Apache Hudi or S3A key, or a ``storage.*`` field path) sets a storage field."""
    entry = lookup(key)
    section = entry.path[0] if entry is not None else key.strip().split(".", 1)[0].lower()
    return section == "storage"


def is_ignored(key: str) -> bool:
    """Whether ``key`` is recognised but has no effect here (see :data:`IGNORED_KEYS`)."""
    return key.strip().lower() in _IGNORED_LOWER


def ignored_value_reason(key: str, value: object) -> tuple[str, str | None] | None:
    """Why an ignored key's ``value`` cannot be accepted (reason, roadmap item), or None when it can."""
    rule = _UNLESS_LOWER.get(key.strip().lower())
    if rule is None:
        return None
    canonical, accepted, roadmap = rule
    if str(value).strip().lower() in accepted:
        return None
    return f"{IGNORED_KEYS[canonical]} (only {', '.join(accepted)} is accepted)", roadmap


def suggest(key: str) -> list[str]:
    """Known keys close to an unknown one, best first."""
    return close_matches(key.strip(), _ALL_KEYS, cutoff=0.75)


def get_path(obj: Any, path: Path) -> Any:
    """Follow ``path`` through models (attributes) and option mappings (keys); None if absent."""
    current = obj
    for part in path:
        if current is None:
            return None
        current = current.get(part) if isinstance(current, Mapping) else getattr(current, part, None)
    return current
