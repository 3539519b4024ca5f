"""Apache Hudi's write operations: the ones a writer is asked for and the types commit metadata records.

``hoodie.datasource.write.operation`` takes the lower-case spelling (:class:`WriteOperation`, the
operations this project writes); commit metadata's ``operationType`` holds the constant name of
Java's ``WriteOperationType`` (:class:`WriteOperationType`, every type other writers record too).
"""

from __future__ import annotations

import enum

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = ["WriteOperation", "WriteOperationType", "operation_type"]


class WriteOperation(HudiEnum):
    """Write operations (``hoodie.datasource.write.operation``), in Apache Hudi's lower-case spelling."""

    INSERT = "insert"
    UPSERT = "upsert"
    BULK_INSERT = "bulk_insert"
    DELETE = "delete"
    INSERT_OVERWRITE = "insert_overwrite"
    INSERT_OVERWRITE_TABLE = "insert_overwrite_table"
    DELETE_PARTITION = "delete_partition"


class WriteOperationType(enum.StrEnum):
    """``WriteOperationType`` constant names, as written in ``operationType``."""

    INSERT = "INSERT"
    INSERT_PREPPED = "INSERT_PREPPED"
    UPSERT = "UPSERT"
    UPSERT_PREPPED = "UPSERT_PREPPED"
    BULK_INSERT = "BULK_INSERT"
    BULK_INSERT_PREPPED = "BULK_INSERT_PREPPED"
    DELETE = "DELETE"
    DELETE_PREPPED = "DELETE_PREPPED"
    INSERT_OVERWRITE = "INSERT_OVERWRITE"
    INSERT_OVERWRITE_TABLE = "INSERT_OVERWRITE_TABLE"
    DELETE_PARTITION = "DELETE_PARTITION"
    CLUSTER = "CLUSTER"
    COMPACT = "COMPACT"
    LOG_COMPACT = "LOG_COMPACT"
    BOOTSTRAP = "BOOTSTRAP"
    INDEX = "INDEX"
    ALTER_SCHEMA = "ALTER_SCHEMA"
    UNKNOWN = "UNKNOWN"


def operation_type(operation: WriteOperation) -> WriteOperationType:
    """The ``operationType`` commit metadata records for a write operation."""
    return WriteOperationType(operation.value.upper())
