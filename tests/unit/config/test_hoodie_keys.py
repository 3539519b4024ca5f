"""Apache Hudi option dicts map onto typed fields, case-insensitively, and back."""

from __future__ import annotations

import re
from uuid import UUID

import pytest

from hudi_framework.config import HudiSettings, InvalidConfigValueError
from hudi_framework.config.hoodie_keys import HOODIE_KEYS, IGNORED_KEYS, IGNORED_UNLESS, lookup, suggest
from hudi_framework.config.paths import field_at
from hudi_framework.errors import UnknownConfigKeyError, UnsupportedOptionError
from hudi_framework.vocabulary import (
    ConcurrencyMode,
    QueryType,
    RecordMergeMode,
    TableType,
    TableVersion,
    TimestampType,
    WriteOperation,
)

SPARK_JOB_OPTIONS = {
    "hoodie.table.name": "trips",
    "path": "s3a://lake/trips",
    "hoodie.datasource.write.table.type": "MERGE_ON_READ",
    "hoodie.datasource.write.operation": "insert",
    "hoodie.datasource.write.recordkey.field": "uuid",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
    "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
    "hoodie.datasource.write.hive_style_partitioning": "true",
    "hoodie.index.type": "BLOOM",
    "hoodie.index.bloom.num_entries": "60000",
    "hoodie.index.bloom.fpp": "0.000000001",
    "hoodie.bloom.index.filter.type": "DYNAMIC_V0",
    "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
    "hoodie.cleaner.policy.failed.writes": "LAZY",
    "hoodie.write.lock.provider": "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider",
    "hoodie.write.lock.dynamodb.table": "hudi-locks",
    "hoodie.write.lock.dynamodb.partition_key": "trips",
    "hoodie.write.lock.dynamodb.region": "us-east-1",
    "hoodie.write.lock.wait_time_ms": "30000",
    "hoodie.write.lock.num_retries": "5",
    "hoodie.write.record.merge.mode": "EVENT_TIME_ORDERING",
    "hoodie.compact.inline": "true",
    "hoodie.compact.inline.max.delta.commits": "2",
    "hoodie.cleaner.commits.retained": "4",
    "hoodie.parquet.small.file.limit": "0",
    "hoodie.parquet.max.file.size": "2097152",
    "hoodie.metadata.enable": "false",
    "hoodie.upsert.shuffle.parallelism": "2",
}


def _check_spark_job(settings: HudiSettings) -> None:
    assert settings.table.name == "trips"
    assert settings.table.base_path == "s3a://lake/trips"
    assert settings.table.type is TableType.MERGE_ON_READ
    assert settings.write.operation is WriteOperation.INSERT
    assert settings.table.record_key_fields == ("uuid",)
    assert settings.table.partition_fields == ("city",)
    assert settings.table.ordering_fields == ("ts",)
    assert settings.table.key_generator is not None
    assert settings.table.key_generator.name == "simple"
    assert settings.table.hive_style_partitioning is True
    assert settings.index.type == "bloom"
    assert settings.index.options == {
        "num_entries": "60000",
        "fpp": "0.000000001",
        "filter_type": "DYNAMIC_V0",
    }
    assert settings.write.concurrency_mode is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL
    assert settings.lock.provider == "dynamodb"
    assert settings.lock.options == {"table": "hudi-locks", "partition_key": "trips", "region": "us-east-1"}
    assert settings.lock.wait_time_ms == 30000
    assert settings.lock.num_retries == 5
    assert settings.merger.mode is RecordMergeMode.EVENT_TIME_ORDERING
    assert settings.services.compaction.inline is True
    assert settings.services.compaction.max_delta_commits == 2
    assert settings.services.clean.commits_retained == 4
    assert settings.write.small_file_limit_bytes == 0
    assert settings.write.max_file_size_bytes == 2097152


def test_spark_job_options_map_to_typed_fields() -> None:
    _check_spark_job(HudiSettings.from_hoodie_options(SPARK_JOB_OPTIONS, env=False))


def test_lower_cased_keys_map_the_same() -> None:
    # Spark lower-cases option keys (CaseInsensitiveStringMap); values keep their case.
    lowered = {k.lower(): v for k, v in SPARK_JOB_OPTIONS.items()}
    _check_spark_job(HudiSettings.from_hoodie_options(lowered, env=False))


def test_upper_cased_keys_map_the_same() -> None:
    upper = {k.upper(): v for k, v in SPARK_JOB_OPTIONS.items()}
    _check_spark_job(HudiSettings.from_hoodie_options(upper, env=False))


@pytest.mark.parametrize(
    ("key", "value", "attr", "expected"),
    [
        ("hoodie.table.type", "cow", ("table", "type"), TableType.COPY_ON_WRITE),
        ("hoodie.table.type", "mor", ("table", "type"), TableType.MERGE_ON_READ),
        ("hoodie.table.version", "6", ("table", "version"), TableVersion.SIX),
        ("hoodie.write.table.version", "EIGHT", ("table", "version"), TableVersion.EIGHT),
        ("hoodie.table.precombine.field", "ts", ("table", "ordering_fields"), ("ts",)),
        ("hoodie.table.ordering.fields", "a, b", ("table", "ordering_fields"), ("a", "b")),
        (
            "hoodie.datasource.write.operation",
            "BULK_INSERT",
            ("write", "operation"),
            WriteOperation.BULK_INSERT,
        ),
        (
            "hoodie.datasource.write.operation",
            "delete_partition",
            ("write", "operation"),
            WriteOperation.DELETE_PARTITION,
        ),
        ("hoodie.datasource.query.type", "read_optimized", ("read", "query_type"), QueryType.READ_OPTIMIZED),
        ("as.of.instant", "2024-01-15 10:30:00", ("read", "as_of_instant"), "20240115103000"),
        (
            "hoodie.record.merge.mode",
            "commit_time_ordering",
            ("merger", "mode"),
            RecordMergeMode.COMMIT_TIME_ORDERING,
        ),
        (
            "hoodie.record.merge.strategy.id",
            "ce9acb64-bde0-424c-9b91-f6ebba25356d",
            ("merger", "strategy_id"),
            UUID("ce9acb64-bde0-424c-9b91-f6ebba25356d"),
        ),
        ("hoodie.memory.merge.max.size", "1024", ("merger", "max_memory_bytes"), 1024),
        (
            "hoodie.keygen.timebased.timestamp.type",
            "EPOCHMILLISECONDS",
            ("table", "keygen_timestamp", "timestamp_type"),
            TimestampType.EPOCHMILLISECONDS,
        ),
        (
            "hoodie.keygen.timebased.output.dateformat",
            "yyyy/MM/dd",
            ("table", "keygen_timestamp", "output_dateformat"),
            "yyyy/MM/dd",
        ),
        (
            "hoodie.clean.policy",
            "KEEP_LATEST_FILE_VERSIONS",
            ("services", "clean", "policy"),
            "KEEP_LATEST_FILE_VERSIONS",
        ),
        ("hoodie.clean.max.commits", "3", ("services", "clean", "max_commits"), 3),
        ("hoodie.write.lock.wait_time_ms_between_retry", "500", ("lock", "retry_wait_time_ms"), 500),
        ("hoodie.datasource.write.partitionpath.urlencode", "true", ("table", "url_encode_partitions"), True),
        ("hoodie.populate.meta.fields", "false", ("table", "populate_meta_fields"), False),
    ],
)
def test_single_key_maps_to_field(key: str, value: str, attr: tuple[str, ...], expected: object) -> None:
    settings = HudiSettings.from_hoodie_options({key: value}, env=False)
    actual: object = settings
    for part in attr:
        actual = getattr(actual, part)
    assert actual == expected


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("BLOOM", "bloom"),
        ("bloom", "bloom"),
        ("SIMPLE", "simple"),
        ("GLOBAL_BLOOM", "global-bloom"),
        ("GLOBAL_SIMPLE", "global-simple"),
        ("BUCKET", "bucket"),
    ],
)
def test_index_types(value: str, name: str) -> None:
    assert HudiSettings.from_hoodie_options({"hoodie.index.type": value}, env=False).index.type == name


@pytest.mark.parametrize(
    ("key", "value", "name"),
    [
        ("hoodie.datasource.write.keygenerator.class", "org.apache.hudi.keygen.SimpleKeyGenerator", "simple"),
        (
            "hoodie.datasource.write.keygenerator.class",
            "org.apache.hudi.keygen.ComplexAvroKeyGenerator",
            "complex",
        ),
        (
            "hoodie.table.keygenerator.class",
            "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
            "non-partition",
        ),
        (
            "hoodie.datasource.write.keygenerator.class",
            "org.apache.hudi.keygen.TimestampBasedKeyGenerator",
            "timestamp",
        ),
        ("hoodie.datasource.write.keygenerator.class", "org.apache.hudi.keygen.CustomKeyGenerator", "custom"),
        ("hoodie.datasource.write.keygenerator.type", "NON_PARTITION", "non-partition"),
        ("hoodie.table.keygenerator.type", "COMPLEX_AVRO", "complex"),
        ("hoodie.datasource.write.keygenerator.type", "timestamp", "timestamp"),
    ],
)
def test_key_generator_class_and_type_names(key: str, value: str, name: str) -> None:
    key_generator = HudiSettings.from_hoodie_options({key: value}, env=False).table.key_generator
    assert key_generator is not None
    assert key_generator.name == name


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("org.apache.hudi.client.transaction.lock.InProcessLockProvider", "in-process"),
        ("org.apache.hudi.client.transaction.lock.StorageBasedLockProvider", "storage"),
        ("org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "filesystem"),
        ("org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider", "dynamodb"),
        ("org.apache.hudi.aws.transaction.lock.DynamoDBBasedImplicitPartitionKeyLockProvider", "dynamodb"),
        ("in-process", "in-process"),
        ("acme-zk", "acme-zk"),
    ],
)
def test_lock_provider_classes(value: str, name: str) -> None:
    settings = HudiSettings.from_hoodie_options({"hoodie.write.lock.provider": value}, env=False)
    assert settings.lock.provider == name


def test_unsupported_java_class_names_the_key() -> None:
    zookeeper = "org.apache.hudi.client.transaction.lock.ZookeeperBasedLockProvider"
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options({"hoodie.write.lock.provider": zookeeper}, env=False)
    assert info.value.key == "hoodie.write.lock.provider"
    assert "ZookeeperBasedLockProvider" in str(info.value)
    assert "InProcessLockProvider" in str(info.value)  # lists what is supported


def test_aliases_that_agree_are_accepted() -> None:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.table.type": "mor", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}, env=False
    )
    assert settings.table.type is TableType.MERGE_ON_READ


def test_aliases_that_disagree_fail_naming_both() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options(
            {"hoodie.table.precombine.field": "ts", "hoodie.datasource.write.precombine.field": "updated"},
            env=False,
        )
    assert info.value.key == "hoodie.datasource.write.precombine.field"
    assert "hoodie.table.precombine.field" in str(info.value)


def test_unknown_key_suggests_close_keys() -> None:
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.from_hoodie_options({"hoodie.datasource.write.recordkey.fields": "id"}, env=False)
    assert info.value.key == "hoodie.datasource.write.recordkey.fields"
    assert info.value.suggestions[0] == "hoodie.datasource.write.recordkey.field"
    assert "did you mean 'hoodie.datasource.write.recordkey.field'" in str(info.value)


def test_unknown_lower_cased_key_suggests_canonical_spelling() -> None:
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.from_hoodie_options({"hoodie.compact.inlin": "true"}, env=False)
    assert "hoodie.compact.inline" in info.value.suggestions


def test_unknown_keys_are_all_reported() -> None:
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.from_hoodie_options({"hoodie.foo": "1", "hoodie.bar": "2"}, env=False)
    assert info.value.key == "hoodie.foo"
    assert info.value.also == ("hoodie.bar",)
    assert str(info.value).endswith("also unknown: 'hoodie.bar' (in hoodie options)")


def test_ignored_keys_are_accepted_but_unused() -> None:
    # Keys honest only with one value (the behaviour we have) get that value; the others any value.
    options = {key: IGNORED_UNLESS[key][0][0] if key in IGNORED_UNLESS else "true" for key in IGNORED_KEYS}
    assert HudiSettings.from_hoodie_options(options, env=False) == HudiSettings()


def test_ignored_keys_with_one_honest_value_refuse_the_others() -> None:
    for key in IGNORED_UNLESS:
        assert key in IGNORED_KEYS
        with pytest.raises(UnsupportedOptionError, match=re.escape(repr(key))):
            HudiSettings.from_hoodie_options({key: "something-else"}, env=False)


def test_keys_not_on_any_list_are_rejected() -> None:
    # Recognised by Apache Hudi, but it would change behaviour this project does not have.
    with pytest.raises(UnknownConfigKeyError):
        HudiSettings.from_hoodie_options({"hoodie.datasource.hive_sync.enable": "true"}, env=False)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hoodie.table.type", "BANANA"),
        ("hoodie.compact.inline.max.delta.commits", "-1"),
        ("hoodie.datasource.write.operation", "merge"),
        ("hoodie.table.version", "7"),
        ("hoodie.write.concurrency.mode", "chaos"),
        ("hoodie.datasource.read.begin.instanttime", "yesterday"),
        ("hoodie.record.merge.strategy.id", "not-a-uuid"),
        ("hoodie.parquet.max.file.size", "big"),
        ("hoodie.compact.inline", "maybe"),
    ],
)
def test_bad_value_names_the_hoodie_key(key: str, value: str) -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options({key: value}, env=False)
    assert info.value.key == key
    assert str(info.value).startswith(f"invalid value for {key!r}")


def test_bad_value_names_the_key_as_spelled() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options({"HOODIE.TABLE.TYPE": "BANANA"}, env=False)
    assert info.value.key == "HOODIE.TABLE.TYPE"


def test_cross_field_error_names_the_hoodie_key() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options(
            {
                "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
                "hoodie.clean.failed.writes.policy": "EAGER",
            },
            env=False,
        )
    assert info.value.key == "hoodie.clean.failed.writes.policy"


def test_every_mapped_key_targets_a_field() -> None:
    from hudi_framework.config import HudiSettings as Root

    for entry in HOODIE_KEYS:
        if "options" in entry.path:
            # Free options of a component: the component's own model checks them.
            assert field_at(Root, entry.path[: entry.path.index("options") + 1]) is not None
        else:
            assert field_at(Root, entry.path) is not None, entry.path


def test_keys_are_unique_and_lower_case() -> None:
    keys = [key for entry in HOODIE_KEYS for key in entry.keys] + list(IGNORED_KEYS)
    assert len(keys) == len({k.lower() for k in keys})
    assert all(k == k.lower() for k in keys)


def test_lookup_and_suggest() -> None:
    entry = lookup("HOODIE.DATASOURCE.WRITE.OPERATION")
    assert entry is not None
    assert entry.path == ("write", "operation")
    assert suggest("hoodie.datasource.write.operatio")[0] == "hoodie.datasource.write.operation"


def test_export_round_trip() -> None:
    settings = HudiSettings.from_hoodie_options(SPARK_JOB_OPTIONS, env=False)
    exported = settings.to_hoodie_options()
    assert exported["hoodie.index.type"] == "BLOOM"
    assert exported["hoodie.write.lock.provider"] == "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider"
    assert exported["hoodie.datasource.write.keygenerator.type"] == "SIMPLE"
    assert exported["hoodie.datasource.write.table.type"] == "MERGE_ON_READ"
    assert exported["hoodie.datasource.write.hive_style_partitioning"] == "true"
    assert exported["hoodie.metadata.enable"] == "false"  # the job's value, not the default (true)
    assert HudiSettings.from_hoodie_options(exported, env=False) == settings


def test_export_includes_defaults_on_request() -> None:
    exported = HudiSettings().to_hoodie_options(include_defaults=True)
    assert exported["hoodie.datasource.write.operation"] == "upsert"
    assert exported["hoodie.write.table.version"] == "9"
    assert exported["hoodie.index.type"] == "SIMPLE"
    assert HudiSettings().to_hoodie_options() == {}
    assert HudiSettings.from_hoodie_options(exported, env=False) == HudiSettings()


def test_third_party_names_round_trip() -> None:
    settings = HudiSettings.load(overrides={"index.type": "acme-index", "lock.provider": "acme-lock"}, env=False)
    exported = settings.to_hoodie_options()
    assert exported["hoodie.index.type"] == "ACME_INDEX"
    assert HudiSettings.from_hoodie_options(exported, env=False) == settings


def test_a_bad_alias_value_is_reported_even_when_another_alias_is_good() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options(
            {"hoodie.clean.commits.retained": "5", "hoodie.cleaner.commits.retained": "many"}, env=False
        )
    assert info.value.key == "hoodie.cleaner.commits.retained"


def test_secret_aliases_do_not_leak_on_conflict() -> None:
    secret = "s3cr3t-value-XYZ"
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.from_hoodie_options({"hoodie.clean.policy": ["x"], "hoodie.cleaner.policy": secret}, env=False)
    assert secret not in str(info.value)


@pytest.mark.parametrize("family", ["bloom", "simple"])
def test_update_partition_path_keys_set_the_index_option(family: str) -> None:
    key = f"hoodie.{family}.index.update.partition.path"
    settings = HudiSettings.from_hoodie_options({"hoodie.index.type": "GLOBAL_BLOOM", key: "false"}, env=False)
    assert settings.index.type == "global-bloom"
    assert settings.index.options == {"update_partition_path": "false"}
    # Exported under both keys, so a Java writer gets it whichever global index it runs.
    exported = settings.to_hoodie_options()
    assert exported["hoodie.bloom.index.update.partition.path"] == "false"
    assert exported["hoodie.simple.index.update.partition.path"] == "false"
    assert HudiSettings.from_hoodie_options(exported, env=False) == settings


def test_update_partition_path_keys_must_agree() -> None:
    with pytest.raises(InvalidConfigValueError, match="conflicts"):
        HudiSettings.from_hoodie_options(
            {"hoodie.bloom.index.update.partition.path": "true", "hoodie.simple.index.update.partition.path": "false"},
            env=False,
        )
