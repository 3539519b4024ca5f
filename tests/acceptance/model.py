"""The truth: what the table must hold after each write, computed in plain Python from the batches.

Semantics modelled (copy-on-write, event-time ordering on ``seq``; Apache Hudi's defaults):

* upsert: duplicates of a batch are combined (greatest ``seq`` wins); an incoming version replaces
  the stored one unless the stored ``seq`` is greater (then the stored row, with its commit time,
  stays); ``_hoodie_is_deleted=true`` rows delete their key.
* insert / bulk_insert: every row is a new record (scenarios only insert new keys).
* delete: removes the keys given, whatever their ordering values; unknown keys are ignored.
* insert_overwrite: the partitions of the batch hold exactly the batch; insert_overwrite_table: the
  table holds exactly the batch; delete_partition: the partitions are empty.
* Global index: a key is one record table-wide. An upsert in another partition moves it (delete
  there, insert here) when the index updates partition paths, else updates it where it is.

Each live record remembers the write (its step number) that last wrote it: that is its
``_hoodie_commit_time``, and what incremental windows select on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.data import ORDERING_FIELD, SCHEMA, Row
from tests.acceptance.layouts import Layout

IS_DELETED = "_hoodie_is_deleted"


@dataclass(frozen=True)
class Record:
    """One live record: its data, its key strings and the step that wrote this version."""

    row: Row
    record_key: str
    partition_path: str
    step: int


@dataclass
class ExpectedTable:
    """The model table.

    Attributes:
        layout: Keys and partitions.
        global_index: Keys are unique table-wide.
        update_partition_path: Global index only: a key upserted in another partition moves there.
        states: The live records after each write, by identity (index = step number).
    """

    layout: Layout
    global_index: bool = False
    update_partition_path: bool = True
    states: list[dict[tuple[str, str], Record]] = field(default_factory=list)

    @property
    def current(self) -> dict[tuple[str, str], Record]:
        """The live records now."""
        return dict(self.states[-1]) if self.states else {}

    def _identity(self, record_key: str, partition_path: str) -> tuple[str, str]:
        return (record_key, "") if self.global_index else (record_key, partition_path)

    def _record(self, row: Row, step: int) -> Record:
        data = {k: v for k, v in row.items() if k != IS_DELETED}
        return Record(data, self.layout.record_key(data), self.layout.partition_path(data), step)

    def apply(self, operation: WriteOperation, rows: Sequence[Row], partitions: Sequence[str] = ()) -> None:
        """Record one write (rows may carry ``_hoodie_is_deleted``)."""
        step = len(self.states)
        state = self.current
        records = [self._record(r, step) for r in rows]
        deleted = [bool(r.get(IS_DELETED)) for r in rows]
        if operation is WriteOperation.UPSERT:
            self._upsert(state, records, deleted)
        elif operation in (WriteOperation.INSERT, WriteOperation.BULK_INSERT):
            for rec, gone in zip(records, deleted, strict=True):
                if not gone:
                    state[self._identity(rec.record_key, rec.partition_path)] = rec
        elif operation is WriteOperation.DELETE:
            for rec in records:
                state.pop(self._identity(rec.record_key, rec.partition_path), None)
        elif operation in (WriteOperation.INSERT_OVERWRITE, WriteOperation.INSERT_OVERWRITE_TABLE):
            if operation is WriteOperation.INSERT_OVERWRITE_TABLE:
                state.clear()
            else:
                touched = {rec.partition_path for rec in records}
                state = {k: v for k, v in state.items() if v.partition_path not in touched}
            for rec in records:
                state[self._identity(rec.record_key, rec.partition_path)] = rec
        elif operation is WriteOperation.DELETE_PARTITION:
            state = {k: v for k, v in state.items() if v.partition_path not in set(partitions)}
        else:  # pragma: no cover - every operation is listed above
            raise AssertionError(operation)
        self.states.append(state)

    def carry(self, at: int | None = None) -> None:
        """Record an instant that changes no record (a compaction) as step ``at`` (default: last).

        A compaction completed after later writes sits in the timeline at its requested time: its
        step holds the state before it, and later steps move up by one.
        """
        at = len(self.states) if at is None else at
        moved = [
            {k: dataclasses.replace(r, step=r.step + 1) if r.step >= at else r for k, r in state.items()}
            for state in self.states[at:]
        ]
        self.states[at:] = [dict(self.states[at - 1]) if at else {}, *moved]

    def _upsert(self, state: dict[tuple[str, str], Record], records: list[Record], deleted: list[bool]) -> None:
        combined: dict[tuple[str, str], tuple[Record, bool]] = {}
        for rec, gone in zip(records, deleted, strict=True):
            ident = self._identity(rec.record_key, rec.partition_path)
            held = combined.get(ident)
            if held is None or rec.row[ORDERING_FIELD] >= held[0].row[ORDERING_FIELD]:
                combined[ident] = (rec, gone)
        for ident, (rec, gone) in combined.items():
            stored = state.get(ident)
            if stored is not None and stored.row[ORDERING_FIELD] > rec.row[ORDERING_FIELD]:
                continue  # the stored version is newer by event time
            if gone:
                state.pop(ident, None)
            elif stored is not None and stored.partition_path != rec.partition_path and not self.update_partition_path:
                # A global index keeps the key in its old partition (hoodie.*.update.partition.path=false).
                state[ident] = Record(rec.row, rec.record_key, stored.partition_path, rec.step)
            else:
                state[ident] = rec

    # ------------------------------------------------------------------ expected reads
    def snapshot(self, step: int) -> list[Record]:
        """Live records after write ``step``."""
        return list(self.states[step].values())

    def incremental(self, after: int | None, until: int) -> list[Record]:
        """Records live after write ``until`` that a write in ``(after, until]`` wrote."""
        low = -1 if after is None else after
        return [r for r in self.states[until].values() if low < r.step <= until]


def records_table(records: Sequence[Record], instants: Sequence[str] | None) -> pa.Table:
    """Records as a table: data columns plus the key meta columns (and commit time when known)."""
    table = pa.Table.from_pylist([r.row for r in records], schema=SCHEMA)
    table = table.append_column("_hoodie_record_key", pa.array([r.record_key for r in records], pa.string()))
    table = table.append_column("_hoodie_partition_path", pa.array([r.partition_path for r in records], pa.string()))
    if instants is not None:
        table = table.append_column("_hoodie_commit_time", pa.array([instants[r.step] for r in records], pa.string()))
    return table
