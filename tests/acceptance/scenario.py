"""The scenario engine: a fresh table, a list of steps built from deterministic data, and the model.

A :class:`Scenario` owns the table, the settings, the row factory and the expected model. Each
``write_*`` method builds one step from the model's current state (which keys exist, in which
partitions), runs it on the engine, records it in the model, and remembers the completed instant.
``Checker(...).check_all()`` then compares our reader, hudi-rs and the model.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hudi_framework import open_table_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.plugin import build_plugin_manager
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.data import SCHEMA, RowFactory, to_table
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.layouts import Layout
from tests.acceptance.model import ExpectedTable
from tests.acceptance.oracle import Checker, snapshot_files

E = TypeVar("E", bound=BaseException)

#: Options of every scenario: the bloom filter in every base file footer is sized for a few hundred
#: keys (Java's default, 60000 entries, is ~400 KB per file, which only slows the suite down).
BASE_OPTIONS = {"hoodie.index.bloom.num_entries": "500"}
#: Small files: a few dozen rows per file group, so partitions hold several file groups.
SMALL_FILES = {
    "hoodie.parquet.max.file.size": "12288",
    "hoodie.parquet.small.file.limit": "6144",
    "hoodie.copyonwrite.record.size.estimate": "600",
}


@dataclass
class Scenario:
    """One table under test and what it must contain.

    Attributes:
        engine: The write engine.
        path: The table's base path.
        layout: Keys and partitions.
        version: Table version (6, 8 or 9).
        options: ``hoodie.*`` write options (index, sizing...).
        populate_meta_fields: ``hoodie.populate.meta.fields``.
        seed: Data seed.
        table_type: ``COPY_ON_WRITE`` or ``MERGE_ON_READ``.
    """

    engine: WriteEngine
    path: Path
    layout: Layout
    version: int = 9
    options: dict[str, str] = field(default_factory=dict)
    populate_meta_fields: bool = True
    seed: int = 0
    table_type: str = "COPY_ON_WRITE"
    model: ExpectedTable = field(init=False)
    instants: list[Instant] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.settings = HudiSettings.from_hoodie_options(
            BASE_OPTIONS | self.layout.write_options | self.options, env=False
        )
        index = self.settings.index
        self.model = ExpectedTable(
            self.layout,
            global_index=index.type.startswith("global-"),
            update_partition_path=str(index.options.get("update_partition_path", True)).lower() == "true",
        )
        self.rows = RowFactory(self.seed, self.layout.regions)
        self.rng = random.Random(self.seed)
        self.next_key = 0
        # One plugin manager per scenario (entry points are loaded once), as one session would.
        self.plugin_manager = build_plugin_manager()
        config = self.layout.table_config(
            "acceptance", self.version, populate_meta_fields=self.populate_meta_fields, table_type=self.table_type
        )
        HudiTable.create(str(self.path), config, schema=SCHEMA, plugin_manager=self.plugin_manager)

    @property
    def table(self) -> HudiTable:
        """The table, freshly opened (as every new job opens it)."""
        return HudiTable.open(str(self.path), plugin_manager=self.plugin_manager)

    def checker(self) -> Checker:
        """The three-way comparison over every instant written so far."""
        return Checker(str(self.path), self.model, self.instants, self.plugin_manager)

    def refused(self, step: Step, error: type[E]) -> E:
        """Run ``step``, expect ``error``, and prove the table did not change (every file, and reads)."""
        before = snapshot_files(self.path)
        with pytest.raises(error) as info:
            self.engine.run(self.table, self.settings, step)
        after = snapshot_files(self.path)
        assert sorted(after) == sorted(before), "files appeared or vanished"
        assert [k for k in before if before[k] != after[k]] == [], "files changed"
        self.checker().check_latest()  # readers still agree with the model, which saw no write
        return info.value

    # ------------------------------------------------------------------ running steps
    def run(self, step: Step, rows: Sequence[dict[str, Any]] = ()) -> Instant:
        """Run ``step``, record it in the model (from ``rows``) and return its completed instant.

        A compaction the write ran inline (a ``commit`` with ``compacted=true`` after it) is recorded
        as a step that changes no record.
        """
        table = self.table
        before = {i.requested_time for i in table.timeline.commits_timeline()}
        self.engine.run(table, self.settings, step)
        timeline = table.reload().timeline
        new = [i for i in timeline.commits_timeline() if i.requested_time not in before]
        compactions = [i for i in new if i.action is Action.COMMIT and timeline.read_commit_metadata(i).compacted]
        writes = [i for i in new if i not in compactions]
        assert len(writes) == 1, f"{step.operation}: expected one new completed write instant, got {writes}"
        assert all(c.requested_time > writes[0].requested_time for c in compactions), new
        self.model.apply(step.operation, rows, step.partitions)
        self.instants.append(writes[0])
        for compaction in compactions:
            self.model.carry()
            self.instants.append(compaction)
        return writes[0]

    def compact(self) -> Instant | None:
        """Schedule and run a compaction as a separate job would (None when no slice has log files)."""
        table = self.table
        service, host = open_table_service(table, self.settings, "compaction")
        planned = service.schedule(host)
        if planned is None:
            return None
        service.execute(host, planned)
        done = next(i for i in table.reload().timeline.commits_timeline() if i.requested_time == planned)
        self.record_compaction(done)
        return done

    def record_compaction(self, instant: Instant) -> None:
        """Record a completed compaction at its place in the timeline (it changes no record)."""
        at = sum(1 for i in self.instants if i.requested_time < instant.requested_time)
        self.model.carry(at)
        self.instants.insert(at, instant)

    def _new_keys(self, n: int) -> list[int]:
        keys = list(range(self.next_key, self.next_key + n))
        self.next_key += n
        return keys

    def live_keys(self) -> list[int]:
        """Key numbers of the live records, in key order."""
        return sorted({int(r.row["id"][1:]) for r in self.model.current.values()})

    def partitions(self) -> list[str]:
        """Partition paths of the live records, sorted."""
        return sorted({r.partition_path for r in self.model.current.values()})

    # ------------------------------------------------------------------ step builders
    def write_inserts(self, n: int, operation: WriteOperation = WriteOperation.INSERT) -> Instant:
        """``n`` new keys with ``insert`` or ``bulk_insert``."""
        rows = self.rows.rows(self._new_keys(n))
        return self.run(Step(operation, to_table(rows)), rows)

    def write_upsert(self, *, updates: int, stale: int, inserts: int, duplicates: int, deletes: int) -> Instant:
        """An upsert mixing updates, stale updates (older ``seq``), inserts, in-batch duplicates and
        ``_hoodie_is_deleted`` rows."""
        live = self.live_keys()
        self.rng.shuffle(live)
        updated, old, gone = (
            live[:updates],
            live[updates : updates + stale],
            live[updates + stale : updates + stale + deletes],
        )
        rows = self.rows.rows(updated)
        rows += self.rows.rows(old, seq=0)  # older than every stored version: must lose
        rows += self.rows.rows(self._new_keys(inserts))
        rows += self.rows.rows(updated[:duplicates])  # newer duplicates in the same batch win
        flags = [False] * len(rows)
        rows += self.rows.rows(gone)
        flags += [True] * len(gone)
        # Arrival order is shuffled: event-time ordering, not arrival, decides between versions.
        order = list(range(len(rows)))
        self.rng.shuffle(order)
        rows = [rows[i] for i in order]
        flags = [flags[i] for i in order]
        marked = [dict(r, _hoodie_is_deleted=f) for r, f in zip(rows, flags, strict=True)]
        return self.run(Step(WriteOperation.UPSERT, to_table(rows, is_deleted=flags)), marked)

    def write_moves(self, n: int) -> Instant:
        """Upsert ``n`` live keys with another region (a new partition path for region layouts)."""
        live = self.live_keys()
        chosen = sorted(self.rng.sample(live, min(n, len(live))))
        regions = self.layout.regions
        rows = [
            self.rows.row(k, region=regions[(regions.index(self.rows.home(k)[0]) + 1) % len(regions)]) for k in chosen
        ]
        return self.run(Step(WriteOperation.UPSERT, to_table(rows)), rows)

    def write_delete(self, n: int, unknown: int = 2) -> Instant:
        """Delete ``n`` live keys (only the key and partition columns) plus ``unknown`` absent keys."""
        live = self.live_keys()
        chosen = sorted(self.rng.sample(live, min(n, len(live))))
        absent = [10_000 + i for i in range(unknown)]
        rows = self.rows.rows([*chosen, *absent])
        keys = to_table(rows).select(["id", "kind", "region", "ts"])
        return self.run(Step(WriteOperation.DELETE, keys), rows)

    def write_overwrite(self, *, existing: int, fresh: int, table: bool = False) -> Instant:
        """Insert-overwrite with some live keys (of one or two partitions) and some new keys."""
        live = self.live_keys()
        chosen = sorted(self.rng.sample(live, min(existing, len(live))))
        rows = self.rows.rows(chosen) + self.rows.rows(self._new_keys(fresh))
        if not table and self.layout.partitioned:
            # Only the partitions of two keys: other partitions must survive.
            keep = {self.layout.partition_path(rows[0]), self.layout.partition_path(rows[-1])}
            rows = [r for r in rows if self.layout.partition_path(r) in keep]
        op = WriteOperation.INSERT_OVERWRITE_TABLE if table else WriteOperation.INSERT_OVERWRITE
        return self.run(Step(op, to_table(rows)), rows)

    def write_delete_partition(self) -> Instant:
        """Drop the first live partition."""
        partitions = self.partitions()[:1] or [""]
        return self.run(Step(WriteOperation.DELETE_PARTITION, partitions=partitions))

    def write(self, operation: WriteOperation) -> Instant:
        """One representative step of ``operation``."""
        if operation in (WriteOperation.INSERT, WriteOperation.BULK_INSERT):
            return self.write_inserts(40, operation)
        if operation is WriteOperation.UPSERT:
            return self.write_upsert(updates=40, stale=10, inserts=30, duplicates=10, deletes=10)
        if operation is WriteOperation.DELETE:
            return self.write_delete(25)
        if operation is WriteOperation.INSERT_OVERWRITE:
            return self.write_overwrite(existing=30, fresh=30)
        if operation is WriteOperation.INSERT_OVERWRITE_TABLE:
            return self.write_overwrite(existing=30, fresh=30, table=True)
        return self.write_delete_partition()


__all__ = ["BASE_OPTIONS", "SMALL_FILES", "Scenario"]
