"""Apache Hudi's table types (``hoodie.table.type``)."""

from __future__ import annotations

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = ["TableType"]


class TableType(HudiEnum):
    """Apache Hudi table types (``hoodie.table.type``); ``COW`` and ``MOR`` are accepted as aliases."""

    COPY_ON_WRITE = "COPY_ON_WRITE"
    MERGE_ON_READ = "MERGE_ON_READ"


TableType._aliases_ = {"COW": "COPY_ON_WRITE", "MOR": "MERGE_ON_READ"}
