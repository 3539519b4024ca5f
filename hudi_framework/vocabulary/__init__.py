"""Apache Hudi's vocabulary: the names, classes and closed value sets of the Hudi format and options.

One home for each: table types and versions, record merge modes and strategy ids, legacy payload
classes and their modes, key generator names and classes, component names in Hudi options, timeline
time zones, write operations and the closed sets of option values. A public module: plugins may import it. It imports
nothing of the kernel but :mod:`hudi_framework.errors`.
"""

from hudi_framework.vocabulary.component_names import (
    COMPACTION_STRATEGIES,
    INDEX_TYPES,
    LOCK_PROVIDERS,
    ComponentVocabulary,
    HoodieValueError,
)
from hudi_framework.vocabulary.hudi_enum import HudiEnum
from hudi_framework.vocabulary.key_generators import (
    BUILTIN_KEY_GENERATORS,
    KEY_GENERATOR_PACKAGE,
    KEY_GENERATORS,
    BuiltinKeyGenerator,
    key_generator_class,
    key_generator_component,
    key_generator_type,
    key_generator_type_of_class,
)
from hudi_framework.vocabulary.merge_modes import (
    COMMIT_TIME_STRATEGY_ID,
    CUSTOM_STRATEGY_ID,
    EVENT_TIME_STRATEGY_ID,
    PAYLOAD_BASED_STRATEGY_ID,
    RecordMergeMode,
    mode_of_strategy,
    strategy_of_mode,
)
from hudi_framework.vocabulary.option_values import (
    BaseFileFormat,
    CleanerPolicy,
    ClusteringUpdateStrategy,
    CompactionTriggerStrategy,
    ConcurrencyMode,
    DataSkippingSource,
    FailedWritesPolicy,
    InsertDupPolicy,
    LayoutOptimizationStrategy,
    LogBlockFormat,
    ParquetCodec,
    QueryType,
    SpatialCurveBuildMethod,
    TimestampType,
)
from hudi_framework.vocabulary.payloads import (
    DEBEZIUM_UNAVAILABLE_VALUE,
    DEPRECATED_PAYLOAD_MODES,
    MERGE_PROPERTY_PREFIX,
    PARTIAL_UPDATE_MODE_KEY,
    PAYLOAD_PACKAGE,
    default_payload_class,
    deprecated_payload_mode,
    legacy_payload_properties,
    payload_merge_mode,
)
from hudi_framework.vocabulary.table_types import TableType
from hudi_framework.vocabulary.table_versions import DEFAULT_TABLE_VERSION, SUPPORTED_TABLE_VERSIONS, TableVersion
from hudi_framework.vocabulary.timezones import TimelineTimezone
from hudi_framework.vocabulary.write_operations import WriteOperation, WriteOperationType, operation_type

__all__ = [
    "BUILTIN_KEY_GENERATORS",
    "COMMIT_TIME_STRATEGY_ID",
    "COMPACTION_STRATEGIES",
    "CUSTOM_STRATEGY_ID",
    "DEBEZIUM_UNAVAILABLE_VALUE",
    "DEFAULT_TABLE_VERSION",
    "DEPRECATED_PAYLOAD_MODES",
    "EVENT_TIME_STRATEGY_ID",
    "INDEX_TYPES",
    "KEY_GENERATORS",
    "KEY_GENERATOR_PACKAGE",
    "LOCK_PROVIDERS",
    "MERGE_PROPERTY_PREFIX",
    "PARTIAL_UPDATE_MODE_KEY",
    "PAYLOAD_BASED_STRATEGY_ID",
    "PAYLOAD_PACKAGE",
    "SUPPORTED_TABLE_VERSIONS",
    "BaseFileFormat",
    "BuiltinKeyGenerator",
    "CleanerPolicy",
    "ClusteringUpdateStrategy",
    "CompactionTriggerStrategy",
    "ComponentVocabulary",
    "ConcurrencyMode",
    "DataSkippingSource",
    "FailedWritesPolicy",
    "HoodieValueError",
    "HudiEnum",
    "InsertDupPolicy",
    "LayoutOptimizationStrategy",
    "LogBlockFormat",
    "ParquetCodec",
    "QueryType",
    "RecordMergeMode",
    "SpatialCurveBuildMethod",
    "TableType",
    "TableVersion",
    "TimelineTimezone",
    "TimestampType",
    "WriteOperation",
    "WriteOperationType",
    "default_payload_class",
    "deprecated_payload_mode",
    "key_generator_class",
    "key_generator_component",
    "key_generator_type",
    "key_generator_type_of_class",
    "legacy_payload_properties",
    "mode_of_strategy",
    "operation_type",
    "payload_merge_mode",
    "strategy_of_mode",
]
