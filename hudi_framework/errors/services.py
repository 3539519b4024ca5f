"""Table service and job errors."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = [
    "CleanError",
    "ClusteringExecutionError",
    "ClusteringPlanError",
    "ClusteringUpdateError",
    "CompactionCorruptLogError",
    "CompactionExecutionError",
    "CompactionPlanError",
    "JobError",
    "JobVerificationError",
    "LogRepairError",
    "TableServiceError",
]


class JobError(HudiError):
    """A ``hudi-fw run`` job cannot run as configured (source data that does not fit the table...)."""


class JobVerificationError(JobError):
    """The table read back after a job differs from the rows the job expects.

    Attributes:
        expected_rows: Rows the job's model holds.
        actual_rows: Rows read from the table.
        expected_checksum: Content checksum of the model.
        actual_checksum: Content checksum of the rows read.
    """

    def __init__(self, *, expected_rows: int, actual_rows: int, expected_checksum: str, actual_checksum: str) -> None:
        self.expected_rows = expected_rows
        self.actual_rows = actual_rows
        self.expected_checksum = expected_checksum
        self.actual_checksum = actual_checksum
        super().__init__(
            f"read back {actual_rows} rows (checksum {actual_checksum}), expected {expected_rows} "
            f"(checksum {expected_checksum})"
        )


class TableServiceError(HudiError):
    """A table service (compaction, cleaning, clustering) cannot plan or run as asked."""


class CompactionPlanError(TableServiceError):
    """A compaction cannot be scheduled, or a compaction plan is missing or invalid.

    Attributes:
        instant: The compaction instant concerned ("" when none was created).
        reason: What is wrong.
    """

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        self.reason = reason
        where = f"compaction {instant}: " if instant else "compaction: "
        super().__init__(where + reason)


class CompactionExecutionError(TableServiceError):
    """Executing a compaction plan failed; the files it wrote were deleted and the plan is requested again.

    Attributes:
        instant: The compaction instant.
        file_group: ``partition/fileId`` of the operation that failed ("" if not operation-specific).
    """

    def __init__(self, instant: str, file_group: str, reason: str) -> None:
        self.instant = instant
        self.file_group = file_group
        at = f" (file group {file_group})" if file_group else ""
        super().__init__(f"compaction {instant} failed{at}: {reason}")


class CompactionCorruptLogError(CompactionExecutionError):
    """A compaction refused a file slice with a corrupt log block that may hold committed rows.

    Compacting would write the slice without the block's rows into a new base file, making their
    loss permanent. Nothing was written: the plan is requested again.

    Attributes:
        path: URI of the log file.
        offset: Byte offset of the (first such) corrupt block in it.
        instant_time: The instant that wrote the block, when its header or the file name tells.
        corrupt_blocks: How many such blocks the slice has.
    """

    def __init__(
        self,
        instant: str,
        file_group: str,
        *,
        path: str,
        offset: int,
        instant_time: str | None,
        reason: str,
        corrupt_blocks: int = 1,
    ) -> None:
        self.path = path
        self.offset = offset
        self.instant_time = instant_time
        self.corrupt_blocks = corrupt_blocks
        writer = f"written by instant {instant_time}" if instant_time else "written by an unknown instant"
        more = f" (and {corrupt_blocks - 1} more in the file slice)" if corrupt_blocks > 1 else ""
        super().__init__(
            instant,
            file_group,
            f"corrupt log block in {path!r} at offset {offset}, {writer}: {reason}{more}; compacting would "
            "lose its rows for good. Repair the log (docs/operations.md, 'Recovering from a corrupt log "
            "block') or set services.compaction.skip_corrupt_log_blocks=true to compact without them",
        )


class CleanError(TableServiceError):
    """A clean cannot be scheduled or executed as asked (no such pending clean, or it completed).

    Attributes:
        instant: The clean instant concerned ("" when none was created).
        reason: What is wrong.
    """

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        self.reason = reason
        where = f"clean {instant}: " if instant else "clean: "
        super().__init__(where + reason)


class LogRepairError(TableServiceError):
    """A log repair was refused: it would drop rows, or the bytes are not what the repair expects.

    Attributes:
        path: The log file's storage key.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(f"cannot repair log file {path!r}: {reason}")


class ClusteringPlanError(TableServiceError):
    """A clustering cannot be scheduled, or a clustering plan is missing or invalid.

    Attributes:
        instant: The clustering instant concerned ("" when none was created).
        reason: What is wrong.
    """

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        self.reason = reason
        where = f"clustering {instant}: " if instant else "clustering: "
        super().__init__(where + reason)


class ClusteringExecutionError(TableServiceError):
    """Executing a clustering plan failed; the files it wrote were deleted and the plan is requested again.

    Attributes:
        instant: The clustering instant.
        group: Index of the plan's input group that failed (-1 if not group-specific).
    """

    def __init__(self, instant: str, group: int, reason: str) -> None:
        self.instant = instant
        self.group = group
        at = f" (input group {group})" if group >= 0 else ""
        super().__init__(f"clustering {instant} failed{at}: {reason}")


class ClusteringUpdateError(TableServiceError):
    """A write updates or deletes rows of a file group that a pending clustering will replace.

    Apache Hudi's default ``hoodie.clustering.updates.strategy`` (``SparkRejectUpdateStrategy``)
    refuses such writes: the clustering rewrites the file group from the slice it planned, so the
    update would be lost when it completes. Nothing was written.

    Attributes:
        instant: The pending clustering instant.
        file_groups: ``partition/fileId`` of the file groups the write touches.
    """

    def __init__(self, instant: str, file_groups: list[str]) -> None:
        self.instant = instant
        self.file_groups = file_groups
        shown = ", ".join(file_groups[:5]) + (f" (and {len(file_groups) - 5} more)" if len(file_groups) > 5 else "")
        super().__init__(
            f"not allowed to update file group(s) {shown} under pending clustering {instant} "
            "(services.clustering.update_strategy=reject); run or wait for the clustering first"
        )
