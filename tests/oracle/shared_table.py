"""One table both engines work on: write with either, run either's services, compare both engines' reads.

Shared by ``test_services.py`` and ``test_shared_tables.py``. Apache Hudi's services run through its
Spark SQL procedures (``CALL run_clean(...)``...), which need the table registered in its catalog under
a name: :class:`SharedTable` registers it once, under a name unique to the test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, open_table_service, read_table
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options

READ_OPTIMIZED = {"hoodie.datasource.query.type": "read_optimized"}


@dataclass
class SharedTable:
    """A table at ``path`` that both engines write and serve; every step is compared by :meth:`check`."""

    apache_hudi: ApacheHudi
    tally: Tally
    path: Path
    table_type: str
    version: int = 9
    settings: HudiSettings = field(default_factory=HudiSettings)
    name: str = ""
    steps: list[str] = field(default_factory=list)
    #: Options added to every write of Apache Hudi's.
    their_extra: dict[str, str] = field(default_factory=dict)
    _registered: bool = False

    def __post_init__(self) -> None:
        # One catalog serves the whole run: the test's own temporary directory makes the name unique.
        self.name = self.name or re.sub(r"\W", "_", f"{self.path.parent.name}_{self.path.name}").lower()
        self.tally.tables.add(str(self.path))

    # ------------------------------------------------------------------ creation
    def create_ours(self) -> None:
        config = new_table_config(
            self.name, table_type=self.table_type, version=self.version,
            record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"],
        )  # fmt: skip
        HudiTable.create(str(self.path), config)

    @property
    def their_options(self) -> dict[str, str]:
        return apache_hudi_options(self.name, self.table_type, self.version)

    # ------------------------------------------------------------------ writes
    def ours(self, operation: str, rows: pa.Table, settings: HudiSettings | None = None) -> None:
        WriteClient(HudiTable.open(str(self.path)), settings or self.settings).write(rows, operation)
        self.steps.append(f"we {operation}")

    def theirs(self, operation: str, rows: pa.Table, extra: Mapping[str, str] | None = None) -> None:
        self.apache_hudi.write(self.path, rows, {**self.their_options, **self.their_extra, **(extra or {})}, operation)
        self.steps.append(f"it {operation}s")

    # ------------------------------------------------------------------ services
    def register(self) -> str:
        """The table's name in Apache Hudi's catalog (procedures taking only ``table`` need it)."""
        if not self._registered:
            self.apache_hudi.sql(f"CREATE TABLE IF NOT EXISTS {self.name} USING hudi LOCATION '{self.path}'")
            self._registered = True
        return self.name

    def call(self, procedure: str, **arguments: str | int | bool) -> list[dict[str, str | None]]:
        """``CALL procedure(table => <name>, arguments...)`` in Apache Hudi (strings quoted, the rest literal)."""
        args = ", ".join(
            [f"table => '{self.register()}'"]
            + [f"{k} => '{v}'" if isinstance(v, str) else f"{k} => {str(v).lower()}" for k, v in arguments.items()]
        )
        rows = self.apache_hudi.sql(f"CALL {procedure}({args})")
        self.steps.append(f"it {procedure}")
        return rows

    def our_service(self, slot: str, settings: HudiSettings | None = None) -> str | None:
        """Schedule and execute our ``slot`` service (``compaction``, ``clean``); the instant, or None."""
        settings = settings or self.settings
        service, host = open_table_service(HudiTable.open(str(self.path), settings=settings), settings, slot)
        instant = service.schedule(host)
        if instant is not None:
            service.execute(host, instant)
        self.steps.append(f"we {slot}")
        return instant

    # ------------------------------------------------------------------ reads
    def snapshot(self) -> pa.Table:
        return read_table(HudiTable.open(str(self.path)))

    def check(self, *, metadata_off: bool = False, read_optimized: bool = True, as_of: str | None = None) -> pa.Table:
        """Compare both engines' snapshot reads (merge-on-read and ``read_optimized``: also read-optimized);
        ours is returned.

        ``metadata_off`` also compares Apache Hudi's read without its metadata table; ``as_of`` a time
        travel to that instant.
        """
        label = f"{self.table_type} v{self.version} after {', '.join(self.steps)}"
        table = HudiTable.open(str(self.path))
        snapshot = read_table(table)
        compare_reads(self.tally, f"{label}: snapshot", snapshot, self.apache_hudi.read(self.path), key=KEY,
                      data_columns=DATA_COLUMNS)  # fmt: skip
        if self.table_type == "MERGE_ON_READ" and read_optimized:
            compare_reads(
                self.tally, f"{label}: read_optimized",
                read_table(table, query_type="read_optimized"), self.apache_hudi.read(self.path, READ_OPTIMIZED),
                key=KEY, data_columns=DATA_COLUMNS,
            )  # fmt: skip
        if metadata_off:
            compare_reads(
                self.tally, f"{label}: snapshot, Apache Hudi without its metadata table",
                snapshot, self.apache_hudi.read(self.path, {"hoodie.metadata.enable": "false"}),
                key=KEY, data_columns=DATA_COLUMNS,
            )  # fmt: skip
        if as_of is not None:
            compare_reads(
                self.tally, f"{label}: time travel to {as_of}",
                read_table(table, as_of=as_of), self.apache_hudi.read(self.path, {"as.of.instant": as_of}),
                key=KEY, data_columns=DATA_COLUMNS,
            )  # fmt: skip
        return snapshot


def ts_by_key(rows: pa.Table) -> dict[str, int]:
    return dict(zip(rows["id"].to_pylist(), rows["ts"].to_pylist(), strict=True))
