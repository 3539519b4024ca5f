"""The ``compaction`` table service: schedule plans and execute them, configured by ``HudiSettings``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.errors import TableError
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.table import HudiTable
from hudi_services_compaction.executor import CompactionResult, SliceMerge, execute_compaction, merge_slice
from hudi_services_compaction.scheduler import schedule_compaction


class CompactionServiceOptions(BaseModel):
    """Options of the ``compaction`` service: the session's settings (``services.compaction``, parquet, merger...)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    settings: HudiSettings = Field(default_factory=HudiSettings)


class CompactionService(TableService):
    """Merge-on-read compaction (``compaction.requested`` -> ``commit`` with ``compacted=true``)."""

    action = "compaction"

    def __init__(self, options: CompactionServiceOptions | None = None, *, merge: SliceMerge = merge_slice) -> None:
        """Build the service from its options; ``merge`` replaces the slice merge (tests)."""
        self.settings = (options or CompactionServiceOptions()).settings
        self._merge = merge

    @staticmethod
    def _table(table: Any) -> HudiTable:
        if not isinstance(table, HudiTable):
            raise TableError(f"compaction needs a HudiTable, got {type(table).__name__}")
        # We write instants the metadata table would not know about (format section 7).
        if disable_metadata_table(table.storage):
            return table.reload()
        return table

    def schedule(self, table: Any, instant_time: str | None = None) -> str | None:
        """Write a compaction plan for ``table``; return its instant, or None if no slice needs compacting."""
        return schedule_compaction(
            self._table(table),
            self.settings.services.compaction,
            instant_time=instant_time,
            max_file_size=self.settings.write.max_file_size_bytes,
        )

    def run(self, table: Any, instant: str) -> CompactionResult:
        """Execute the plan of ``instant`` and return what it wrote."""
        return execute_compaction(self._table(table), instant, self.settings, merge=self._merge)

    def execute(self, table: Any, instant: str) -> None:
        """Execute the plan of ``instant`` and complete it."""
        self.run(table, instant)
