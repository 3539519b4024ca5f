"""Three-way comparison of reads: our reader, hudi-rs 0.5.0, and the expected model.

Rows are compared as canonical JSON lines (``hudi_rs_check.canon_array``: type-tolerant, order-free).
Our reader and hudi-rs must agree on every column, meta columns included, since they read the same
files. Against the model, the data columns and ``_hoodie_record_key``, ``_hoodie_partition_path``
and ``_hoodie_commit_time`` must match: the model computes those strings itself.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import hudi
import pyarrow as pa

from hudi_framework.plugin import HudiPluginManager
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Instant
from tests.acceptance.model import ExpectedTable, Record, records_table
from tests.fixture_tables import FIXTURES_DIR


def _load_checker() -> ModuleType:
    path = FIXTURES_DIR.parents[1] / "tools" / "hudi_rs_check.py"
    spec = importlib.util.spec_from_file_location("hudi_rs_check", path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK = _load_checker()
#: hudi-rs needs a start for incremental reads; this one is before every instant.
EARLIEST = "19700101000000000"


def canonical(table: pa.Table, columns: Sequence[str] | None = None) -> list[str]:
    """Sorted canonical JSON lines of ``table`` (all columns, or ``columns``)."""
    names = sorted(columns if columns is not None else table.column_names)
    values = {n: CHECK.canon_array(table.column(n)) for n in names}
    rows = [json.dumps({n: values[n][i] for n in names}, sort_keys=True) for i in range(table.num_rows)]
    return sorted(rows)


def _diff(left: list[str], right: list[str]) -> str:
    only_left = sorted(set(left) - set(right))
    only_right = sorted(set(right) - set(left))
    return (
        f"{len(left)} vs {len(right)} rows; only left ({len(only_left)}): {only_left[:3]}; "
        f"only right ({len(only_right)}): {only_right[:3]}"
    )


def hudi_rs_read(
    path: str, *, as_of: str | None = None, begin: str | None = None, end: str | None = None, incremental: bool = False
) -> pa.Table:
    """Read with hudi-rs (a fresh table object, as an independent reader would)."""
    table = hudi.HudiTableBuilder.from_base_uri(path).build()
    options = hudi.HudiReadOptions()
    if as_of is not None:
        options = options.with_as_of_timestamp(as_of)
    if incremental:
        options = options.with_query_type(hudi.HudiQueryType.Incremental).with_start_timestamp(begin or EARLIEST)
        if end is not None:
            options = options.with_end_timestamp(end)
    batches = table.read(options)
    if batches:
        return pa.Table.from_batches(batches)
    meta = table.hudi_options().get("hoodie.populate.meta.fields", "true") == "true"
    return (table.get_schema_with_meta_fields() if meta else table.get_schema()).empty_table()


@dataclass
class Checker:
    """Compares the three readers on one table after a scenario.

    Attributes:
        path: The table's base path.
        model: The expected model.
        instants: The completed write instants, one per model step.
        plugin_manager: The session's plugin manager (a fresh one when None).
    """

    path: str
    model: ExpectedTable
    instants: Sequence[Instant]
    plugin_manager: HudiPluginManager | None = None

    @functools.cached_property
    def rs_path(self) -> str:
        """Where hudi-rs reads the table: itself, or a copy hudi-rs 0.5.0 can open.

        Apache Hudi 1.x persists custom key generator partition fields with their types
        (``region:SIMPLE,ts:TIMESTAMP``, HUDI-7996), which hudi-rs 0.5.0 takes for column names and
        refuses. The copy differs only by those types stripped from ``hoodie.properties``.
        """
        props = Path(self.path, ".hoodie", "hoodie.properties")
        text = props.read_text(encoding="utf-8")
        match = re.search(r"^hoodie\.table\.partition\.fields=(.*)$", text, flags=re.MULTILINE)
        if match is None or ":" not in match.group(1):
            return self.path
        copy = Path(f"{self.path}-hudi-rs")
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(self.path, copy)
        names = ",".join(f.split(":", 1)[0] for f in match.group(1).split(","))
        stripped = text[: match.start(1)] + names + text[match.end(1) :]
        Path(copy, ".hoodie", "hoodie.properties").write_text(stripped, encoding="utf-8")
        return str(copy)

    @property
    def table(self) -> HudiTable:
        """The table, freshly opened."""
        return HudiTable.open(self.path, plugin_manager=self.plugin_manager)

    def _check(self, what: str, ours: pa.Table, theirs: pa.Table | None, expected: pa.Table) -> None:
        if theirs is not None:
            ours_rows, theirs_rows = canonical(ours), canonical(theirs)
            assert sorted(ours.column_names) == sorted(theirs.column_names), (
                f"{what}: columns {ours.column_names} vs hudi-rs {theirs.column_names}"
            )
            assert ours_rows == theirs_rows, f"{what}: ours vs hudi-rs: {_diff(ours_rows, theirs_rows)}"
        mine = canonical(ours, expected.column_names)
        truth = canonical(expected)
        assert mine == truth, f"{what}: ours vs expected model: {_diff(mine, truth)}"

    def _expected(self, records: Sequence[Record], *, meta: bool) -> pa.Table:
        table = records_table(records, [i.requested_time for i in self.instants])
        if not meta:
            table = table.drop_columns([c for c in table.column_names if c.startswith("_hoodie_")])
        return table

    def check_latest(self) -> None:
        """The timeline and the latest snapshot only."""
        self.check_timeline()
        self.check_snapshots(time_travel=False)

    def check_snapshots(self, *, time_travel: bool = True) -> None:
        """The latest snapshot, and time travel to every completed instant."""
        table = self.table
        meta = table.config.populate_meta_fields
        last = len(self.instants) - 1
        self._check(
            "snapshot",
            read_table(table),
            hudi_rs_read(self.rs_path),
            self._expected(self.model.snapshot(last), meta=meta),
        )
        for step, instant in enumerate(self.instants if time_travel else ()):
            at = instant.requested_time
            self._check(
                f"as of {at} (step {step})",
                read_table(table, as_of=at),
                hudi_rs_read(self.rs_path, as_of=at),
                self._expected(self.model.snapshot(step), meta=meta),
            )

    def _bound(self, table: HudiTable, instant: Instant) -> str:
        # v8+ windows are completion-time windows; v6 windows requested-time ones.
        if table.config.version >= 8:
            assert instant.completion_time is not None
            return instant.completion_time
        return instant.requested_time

    def check_incremental(self, *, with_hudi_rs: bool = True) -> None:
        """Windows between consecutive instants, and from the start to every instant.

        ``with_hudi_rs=False`` compares our reader with the model only: hudi-rs 0.5.0 answers a
        merge-on-read incremental query from the window's log records without merging them with
        the base file, so an update that loses to the stored version (older ordering value) is
        returned anyway, unlike Apache Hudi.
        """
        table = self.table
        for step, instant in enumerate(self.instants):
            end = self._bound(table, instant)
            windows: list[tuple[int | None, str | None]] = [(None, None)]
            if step:
                windows.append((step - 1, self._bound(table, self.instants[step - 1])))
            for after, begin in windows:
                what = f"incremental ({begin or 'start'}, {end}] (steps {after}..{step})"
                self._check(
                    what,
                    read_table(table, query_type="incremental", begin=begin, end=end),
                    hudi_rs_read(self.rs_path, begin=begin, end=end, incremental=True) if with_hudi_rs else None,
                    self._expected(self.model.incremental(after, step), meta=True),
                )

    def check_all(self, *, incremental_hudi_rs: bool = True) -> None:
        """Snapshots, time travel, and incremental windows when the table has meta fields."""
        self.check_timeline()
        self.check_snapshots()
        if self.table.config.populate_meta_fields:
            self.check_incremental(with_hudi_rs=incremental_hudi_rs)

    def check_timeline(self) -> None:
        """One completed write instant per step, the same as hudi-rs lists."""
        table = self.table
        ours = [i.requested_time for i in table.timeline.commits_timeline()]
        assert ours == [i.requested_time for i in self.instants]
        timeline = hudi.HudiTableBuilder.from_base_uri(self.rs_path).build().get_timeline()
        theirs = sorted(
            {
                i.timestamp
                for fn in ("get_completed_commits", "get_completed_deltacommits", "get_completed_replacecommits")
                for i in getattr(timeline, fn)()
            }
        )
        assert theirs == ours


def snapshot_files(path: str | Path) -> dict[str, bytes]:
    """Every file under the table, with its bytes (to prove a failed write changed nothing)."""
    base = Path(path)
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}
