"""Every documented value of every enumerated option works end to end.

The values come from the docs: ``One of ...`` (and ``a`` | ``b`` types) in ``docs/configuration.md``'s
reference, the job batch operations, and the values ``docs/writing.md``'s option table names. They
must be members of the config models' enums, and a member left undocumented must be refused; every
component name the docs list for a component option must be installed. Then each value runs a real
write (local engine, small tables; S3 values on the moto server) and a read that must return the
rows written; where a value changes what the files hold (codecs, log block formats) the files are
checked too. A value that is documented but does not work fails here.

``write.engine = "spark"`` is the one value run elsewhere (a Spark session costs more than this whole
module): :data:`COVERED_ELSEWHERE` names the Spark tests, which must exist.
"""

from __future__ import annotations

import enum
import os
import re
import time
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from pydantic import BaseModel

from hudi_framework import Components
from hudi_framework.config import HudiSettings
from hudi_framework.config.base import Section
from hudi_framework.config.job import JobBatch
from hudi_framework.errors import ClusteringUpdateError, ConfigError, DuplicateKeyError, JobError
from hudi_framework.jobs import generate
from hudi_framework.jobs.runner import run_job
from hudi_framework.layout.space_curves import curve_order
from hudi_framework.log import DataBlock, read_log_file
from hudi_framework.log.framing import PREFIX_SIZE, decode_frame_body
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.read import ReadOptions, plan_read
from hudi_framework.read.reader import collect_plan, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import new_bucket

ROOT = Path(__file__).resolve().parents[2]
CONFIGURATION = ROOT / "docs" / "configuration.md"
WRITING = ROOT / "docs" / "writing.md"
BATCHES = "job.batches.operation"

# ------------------------------------------------------------------------------ the docs
_CELL = re.compile(r"(?<!\\)\|")
_TICKED = re.compile(r"`([^`]+)`")
_ONE_OF = re.compile(r"One of (.*?)\.\s*$")
_VALUE = re.compile(r"^[A-Za-z0-9_-]+$")
_COMPONENT = re.compile(r"^[a-z][a-z0-9-]*$")


def _rows(text: str) -> Iterator[list[str]]:
    for line in text.splitlines():
        if line.startswith("| `"):
            yield [c.strip() for c in _CELL.split(line)[1:-1]]


def _ticked(text: str, pattern: re.Pattern[str] = _VALUE) -> list[str]:
    return [v for v in _TICKED.findall(text) if pattern.match(v)]


def _configuration() -> tuple[str, str]:
    """(the reference, the job batch fields table) of ``docs/configuration.md``."""
    text = CONFIGURATION.read_text(encoding="utf-8")
    before, _, rest = text.partition("Fields of each `[[job.batches]]` table")
    batches, _, after = rest.partition("\n#")  # the batches table ends at the next heading
    return before + "\n#" + after, batches


def documented_enums() -> dict[str, list[str]]:
    """Field -> the values ``docs/configuration.md`` documents for it (enum and literal fields)."""
    reference, batches = _configuration()
    out: dict[str, list[str]] = {}
    for cells in _rows(reference):
        field, kind, description = _TICKED.findall(cells[0])[0], cells[1], cells[-1]
        parts = kind.split("\\|")
        if len(parts) > 1 and all(_TICKED.fullmatch(p.strip()) for p in parts):  # `a` \| `b`: a literal
            out[field] = _ticked(kind)
        elif match := _ONE_OF.search(description):
            out[field] = _ticked(match.group(1))
    for cells in _rows(batches):
        if _TICKED.findall(cells[0])[0] == "operation":
            out[BATCHES] = _ticked(cells[-1])
    return out


def documented_components() -> dict[str, list[str]]:
    """Component field -> the registered names the docs list for it (configuration and writing)."""
    reference, _ = _configuration()
    out: dict[str, list[str]] = {}
    for cells in _rows(reference):
        field, description = _TICKED.findall(cells[0])[0], cells[-1]
        if "registered name" in description:
            out[field] = _ticked(description, _COMPONENT)
    for cells in _rows(WRITING.read_text(encoding="utf-8")):
        field = _TICKED.findall(cells[0])[0]
        if field in out:
            out[field] = list(dict.fromkeys([*out[field], *_ticked(cells[-1], _COMPONENT)]))
    return {field: values for field, values in out.items() if values}


def _enum_values(annotation: Any) -> list[str] | None:
    args = [a for a in typing.get_args(annotation) if a is not types.NoneType]
    if typing.get_origin(annotation) in (types.UnionType, typing.Union) and len(args) == 1:
        annotation = args[0]
    if typing.get_origin(annotation) is Literal:
        return [str(a) for a in typing.get_args(annotation)]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(m.value) for m in annotation]
    return None


def model_enums(model: type[BaseModel] = HudiSettings, prefix: str = "") -> dict[str, list[str]]:
    """Field -> values of every enum and literal field of the settings models."""
    out: dict[str, list[str]] = {}
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, Section):
            out.update(model_enums(annotation, f"{path}."))
        elif JobBatch in typing.get_args(annotation):  # job.batches: tuple[JobBatch, ...]
            out.update(model_enums(JobBatch, f"{path}."))
        elif (values := _enum_values(annotation)) is not None:
            out[path] = values
    return out


def _lower(values: list[str]) -> list[str]:
    return sorted(v.lower() for v in values)


def _accepted(field: str, value: str) -> bool:
    """Whether settings with ``field = value`` (and defaults otherwise) validate."""
    overrides = {field: value} if field != BATCHES else {"job.batches": [{"operation": value, "inserts": 1}]}
    try:
        HudiSettings.load(overrides=overrides, env=False)
    except ConfigError:
        return False
    return True


def test_documented_values_are_the_models_values() -> None:
    """The documented values are enum members, and a member left undocumented is refused (a validator
    narrows ``job.initial_operation`` to three operations)."""
    docs, models = documented_enums(), model_enums()
    assert sorted(docs) == sorted(models), "enum fields documented vs in the models"
    for field, values in models.items():
        assert set(_lower(docs[field])) <= set(_lower(values)), field
        undocumented = [v for v in values if v.lower() not in _lower(docs[field])]
        assert [v for v in undocumented if _accepted(field, v)] == [], f"{field}: accepted but undocumented"


def test_writing_guide_names_only_documented_values() -> None:
    models = model_enums()
    for cells in _rows(WRITING.read_text(encoding="utf-8")):
        field = _TICKED.findall(cells[0])[0]
        if field in models:
            named = {v.lower() for v in _ticked(" ".join(cells[2:]))}
            assert named <= {v.lower() for v in models[field]}, field


_KINDS = {
    "table.key_generator": ComponentKind.KEYGEN,
    "index.type": ComponentKind.INDEX,
    "lock.provider": ComponentKind.LOCK,
    "storage.backend": ComponentKind.STORAGE,
}


def test_documented_components_are_installed(registry: ComponentRegistry) -> None:
    components = documented_components()
    assert sorted(components) == sorted(_KINDS)
    for field, names in components.items():
        installed = set(registry.names(_KINDS[field]))
        assert set(names) <= installed, f"{field}: {sorted(set(names) - installed)} documented, not installed"


# ------------------------------------------------------------------------------ scenarios
KEY, CITY, TS, V = "id", "city", "ts", "v"
Row = tuple[str, str, int, str]
BASE: dict[str, Any] = {
    "table.name": "docs",
    "table.record_key_fields": [KEY],
    "table.partition_fields": [CITY],
    "table.ordering_fields": [TS],
    "write.engine": "local",
}


def _rows_table(rows: list[Row]) -> pa.Table:
    return pa.table({
        KEY: [r[0] for r in rows], CITY: [r[1] for r in rows],
        TS: pa.array([r[2] for r in rows], pa.int64()), V: [r[3] for r in rows],
    })  # fmt: skip


def read_rows(table: HudiTable, **kwargs: Any) -> list[Row]:
    got = read_table(table.reload(), **kwargs)
    return sorted(zip(*(got.column(c).to_pylist() for c in (KEY, CITY, TS, V)), strict=True))


def hoodie_key(field: str) -> str | None:
    """The first Apache Hudi key ``docs/configuration.md`` gives ``field`` (None when it has none)."""
    for cells in _rows(_configuration()[0]):
        if _TICKED.findall(cells[0])[0] == field:
            keys = [k for k in _TICKED.findall(cells[3]) if k.startswith("hoodie.")]
            return keys[0] if keys else None
    return None


def settings_with(field: str, value: str, path: Path, **extra: Any) -> HudiSettings:
    """Settings setting ``field`` to ``value`` by its documented Apache Hudi key (the field path if none)."""
    key = hoodie_key(field)
    overrides = {**BASE, "table.base_path": str(path), **extra}
    if key is None:
        overrides[field] = value
        return HudiSettings.load(overrides=overrides, env=False)
    return HudiSettings.load(hoodie_options={key: value}, overrides=overrides, env=False)


FIRST: list[Row] = [("a", "sf", 1, "a1"), ("b", "ny", 1, "b1"), ("c", "sf", 1, "c1")]
CHANGES: list[Row] = [("a", "sf", 2, "a2"), ("d", "ny", 2, "d2")]
AFTER: list[Row] = sorted([("a", "sf", 2, "a2"), ("c", "sf", 1, "c1"), ("d", "ny", 2, "d2")])  # b deleted


def write_three(settings: HudiSettings) -> HudiTable:
    """Insert, upsert, delete: the table then holds :data:`AFTER`."""
    table = HudiTable.create(settings.table.base_path or "", table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))
    client.upsert(_rows_table(CHANGES))
    client.delete(_rows_table([FIRST[1]]))
    assert read_rows(table) == AFTER
    return table


def generic(field: str, value: str, path: Path) -> None:
    write_three(settings_with(field, value, path))


def merge_on_read(field: str, value: str, path: Path) -> None:
    table = write_three(settings_with(field, value, path, **{"table.type": "MERGE_ON_READ"}))
    assert any(s.has_log_files for s in table.latest_file_slices()), "the upsert went to log files"


def _java_codec(value: str) -> str:
    return value.upper()  # the names of Parquet's (and Java's CompressionCodecName) codecs


def compression_codec(field: str, value: str, path: Path) -> None:
    """Base files and Parquet log blocks are compressed with the codec (as Java's data blocks are)."""
    extra = {"table.type": "MERGE_ON_READ", "write.log_data_block_format": "parquet"}
    table = write_three(settings_with(field, value, path, **extra))
    codecs: set[str] = set()
    for file_slice in table.latest_file_slices():
        if file_slice.base_file_key:
            meta = pq.ParquetFile(path / file_slice.base_file_key).metadata
            codecs |= {meta.row_group(0).column(i).compression for i in range(meta.num_columns)}
        for key in file_slice.log_file_keys:
            raw = table.storage.read(key)
            for block in read_log_file(table.storage, key):
                if isinstance(block, DataBlock):
                    assert block.position is not None
                    start = block.position.offset
                    frame = decode_frame_body(raw[start + PREFIX_SIZE : start + block.position.size])
                    meta = pq.ParquetFile(pa.BufferReader(frame.content)).metadata
                    codecs.add(meta.row_group(0).column(0).compression)
    assert codecs == {_java_codec(value)}


def log_block_format(field: str, value: str, path: Path) -> None:
    table = write_three(settings_with(field, value, path, **{"table.type": "MERGE_ON_READ"}))
    kinds = {
        b.block_type.name
        for s in table.latest_file_slices()
        for key in s.log_file_keys
        for b in read_log_file(table.storage, key)
        if isinstance(b, DataBlock)
    }
    assert kinds == {f"{value.upper()}_DATA"}


def insert_dup_policy(field: str, value: str, path: Path) -> None:
    """An insert of a stored key (``a``) and a new one (``e``): kept, dropped, or the write fails."""
    settings = settings_with(field, value, path)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))
    incoming = [("a", "sf", 2, "a2"), ("e", "ny", 1, "e1")]
    if value == "fail":
        with pytest.raises(DuplicateKeyError):
            client.insert(_rows_table(incoming))
        assert read_rows(table) == sorted(FIRST)
        return
    client.insert(_rows_table(incoming))
    kept = incoming if value == "none" else incoming[1:]
    assert read_rows(table) == sorted([*FIRST, *kept])


def operation(field: str, value: str, path: Path) -> None:
    """``write.operation`` is what ``client.write(rows, operation)`` (and ``format("hudi")``) runs."""
    settings = settings_with(field, value, path)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))
    op = settings.write.operation.value
    rows = {
        "insert": ([("e", "ny", 1, "e1")], sorted([*FIRST, ("e", "ny", 1, "e1")])),
        "upsert": (CHANGES, sorted([CHANGES[0], FIRST[1], FIRST[2], CHANGES[1]])),
        "bulk_insert": ([("e", "la", 1, "e1")], sorted([*FIRST, ("e", "la", 1, "e1")])),
        "delete": ([FIRST[1]], sorted([FIRST[0], FIRST[2]])),
        "insert_overwrite": ([("e", "sf", 1, "e1")], sorted([FIRST[1], ("e", "sf", 1, "e1")])),
        "insert_overwrite_table": ([("e", "sf", 1, "e1")], [("e", "sf", 1, "e1")]),
        # As Apache Hudi's Spark writer: the partitions of the rows given are dropped.
        "delete_partition": ([("x", "ny", 9, "")], sorted([FIRST[0], FIRST[2]])),
    }[op]
    client.write(_rows_table(rows[0]), op)
    assert read_rows(table) == rows[1]


def query_type(field: str, value: str, path: Path) -> None:
    """``ReadOptions.from_settings(settings.read)`` on a merge-on-read table with log files."""
    extra = {"table.type": "MERGE_ON_READ"}
    if value == "incremental":
        extra["read.begin_instant"] = "000"
    settings = settings_with(field, value, path, **extra)
    table = write_three(settings)
    plan = plan_read(table, ReadOptions.from_settings(settings.read))
    got = pa.Table.from_batches(collect_plan(plan, table.storage), schema=plan.schema)
    rows = sorted(zip(*(got.column(c).to_pylist() for c in (KEY, CITY, TS, V)), strict=True))
    # Read-optimized: base files only, so the logged update and delete are not seen.
    assert rows == (sorted([*FIRST, CHANGES[1]]) if value == "read_optimized" else AFTER)


def data_skipping_source(field: str, value: str, path: Path) -> None:
    """Both sources skip the ``ny`` file (``v`` only ``d2``): the footers, or the metadata table's
    column statistics (the writer keeps them by default)."""
    settings = settings_with(field, value, path)
    table = write_three(settings)
    plan = plan_read(table, ReadOptions.from_settings(settings.read, filters=((V, "=", "c1"),)))
    got = pa.Table.from_batches(collect_plan(plan, table.storage), schema=plan.schema)
    assert sorted(zip(*(got.column(c).to_pylist() for c in (KEY, CITY, TS, V)), strict=True)) == [AFTER[1]]
    # The metadata table prunes the ny partition by its partition_stats; footers skip its file.
    assert plan.skipping.files_skipped + plan.skipping.partitions_pruned_by_stats == 1
    assert plan.skipping.files_considered - plan.skipping.files_skipped == 1
    assert plan.skipping.stats_source == value


def merge_mode(field: str, value: str, path: Path) -> None:
    """A late update (smaller ordering value) loses under event time, wins under commit time."""
    extra: dict[str, Any] = {}
    if value == "CUSTOM":  # the example plugin, no column groups: event-time ordering
        extra = {"merger.strategy_id": "8c1f7a52-3c6b-4d2e-9a41-5f0e7d2b6a13", "merger.options": {"groups": []}}
    settings = settings_with(field, value, path, **extra)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))
    client.upsert(_rows_table([("a", "sf", 0, "late")]))
    late_wins = value == "COMMIT_TIME_ORDERING"
    assert read_rows(table) == sorted([("a", "sf", 0, "late") if late_wins else FIRST[0], *FIRST[1:]])


def compaction_trigger(field: str, value: str, path: Path) -> None:
    """Inline compaction after one delta commit, or one second: each strategy compacts."""
    extra = {
        "table.type": "MERGE_ON_READ",
        "services.compaction.inline": True,
        "services.compaction.max_delta_commits": 1,
        "services.compaction.max_delta_seconds": 1,
    }
    settings = settings_with(field, value, path, **extra)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))
    if value in ("TIME_ELAPSED", "NUM_AND_TIME"):
        time.sleep(1.05)  # the smallest max_delta_seconds
    client.upsert(_rows_table(CHANGES))
    client.delete(_rows_table([FIRST[1]]))
    assert read_rows(table) == AFTER
    actions = [i.action for i in table.reload().timeline.commits_timeline()]
    assert Action.COMMIT in actions, f"no compaction ran: {actions}"


def clean_policy(field: str, value: str, path: Path) -> None:
    """Automatic cleaning keeping one commit or file version cleans the upsert's old file slices (an
    hour's history, the least ``hours_retained``, holds them all)."""
    extra = {"services.clean.commits_retained": 1, "services.clean.file_versions_retained": 1}
    table = write_three(settings_with(field, value, path, **extra))
    cleaned = any(i.action is Action.CLEAN for i in table.reload().timeline.instants)
    assert cleaned is (value != "KEEP_LATEST_BY_HOURS")


#: timestamp type -> (options, partition column values, partition paths they give).
_TIMESTAMPS: dict[str, tuple[dict[str, Any], pa.Array, list[str]]] = {
    "UNIX_TIMESTAMP": ({}, pa.array([1_705_311_000] * 3, pa.int64()), ["2024/01/15"] * 3),
    "EPOCHMILLISECONDS": ({}, pa.array([1_705_311_000_000] * 3, pa.int64()), ["2024/01/15"] * 3),
    "EPOCHMICROSECONDS": ({}, pa.array([1_705_311_000_000_000] * 3, pa.int64()), ["2024/01/15"] * 3),
    "SCALAR": ({"scalar_time_unit": "DAYS"}, pa.array([19_737] * 3, pa.int64()), ["2024/01/15"] * 3),
    "DATE_STRING": ({"input_dateformat": "yyyy-MM-dd"}, pa.array(["2024-01-15"] * 3), ["2024/01/15"] * 3),
    "MIXED": ({"input_dateformat": "yyyy-MM-dd"}, pa.array(["2024-01-15"] * 3), ["2024/01/15"] * 3),
}


def timestamp_type(field: str, value: str, path: Path) -> None:
    options, days, paths = _TIMESTAMPS[value]
    extra = {
        "table.partition_fields": ["day"],
        **{f"table.keygen_timestamp.{k}": v for k, v in options.items()},
        "table.keygen_timestamp.output_dateformat": "yyyy/MM/dd",
    }
    settings = settings_with(field, value, path, **extra)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    rows = _rows_table(FIRST).append_column("day", days)
    WriteClient(table, settings).insert(rows)
    got = read_table(table.reload())
    assert sorted(got.column("_hoodie_partition_path").to_pylist()) == sorted(paths)
    assert sorted(got.column(KEY).to_pylist()) == [r[0] for r in FIRST]


def clustering_layout(field: str, value: str, path: Path) -> None:
    """Inline clustering after two commits, rows ordered by ``ts`` as the strategy says."""
    extra = {
        "services.clustering.inline": True,
        "services.clustering.max_commits": 2,
        "services.clustering.sort_columns": [TS],
        "write.small_file_limit_bytes": 0,
    }
    table = write_three(settings_with(field, value, path, **extra))
    replaced = [i for i in table.reload().timeline.completed({Action.REPLACE_COMMIT})]
    assert replaced, "no clustering ran"
    assert table.timeline.read_commit_metadata(replaced[0]).operation_type == "CLUSTER"
    if value == "linear":
        for s in table.latest_file_slices():
            ts = pq.read_table(path / s.partition_path / (s.base_file_name or ""), columns=[TS]).column(0)
            assert ts.to_pylist() == sorted(ts.to_pylist())


def clustering_build_method(field: str, value: str, path: Path) -> None:
    """Inline z-order clustering after two commits with the curve's coordinates built ``value``:
    the files hold the same rows, in the curve's order."""
    extra = {
        "services.clustering.inline": True,
        "services.clustering.max_commits": 2,
        "services.clustering.sort_columns": [TS, "id"],
        "services.clustering.layout_optimize_strategy": "z-order",
        "services.clustering.layout_optimize_sample_size": 16,
        "write.small_file_limit_bytes": 0,
    }
    settings = settings_with(field, value, path, **extra)
    table = write_three(settings)
    assert table.reload().timeline.completed({Action.REPLACE_COMMIT}), "no clustering ran"
    for s in table.latest_file_slices():
        rows = pq.read_table(path / s.partition_path / (s.base_file_name or ""), columns=[TS, "id"])
        expected = curve_order(rows, [TS, "id"], "z-order", build_method=value, sample_size=16)
        assert expected.to_pylist() == list(range(rows.num_rows)), "rows not in the curve's order"


def clustering_update_strategy(field: str, value: str, path: Path) -> None:
    """``reject``: an update of a file group under pending clustering fails and writes nothing."""
    extra = {"services.clustering.schedule_inline": True, "services.clustering.async_max_commits": 1}
    settings = settings_with(field, value, path, **extra)
    table = HudiTable.create(str(path), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    client.insert(_rows_table(FIRST))  # schedules a clustering of the new file groups
    assert table.reload().timeline.pending_clustering_plans()
    with pytest.raises(ClusteringUpdateError):
        client.upsert(_rows_table(CHANGES))
    assert read_rows(table) == sorted(FIRST)


#: The generated trips sample's key, partition and ordering fields, and a small job.
TRIPS: dict[str, Any] = {
    "table.record_key_fields": [generate.KEY_FIELD],
    "table.partition_fields": [generate.PARTITION_FIELD],
    "table.ordering_fields": [generate.ORDERING_FIELD],
    "job.rows": 40,
}


def _job(field: str, value: str, path: Path, **extra: Any) -> None:
    report = run_job(settings_with(field, value, path / "t", **TRIPS, **extra))
    assert report.verified, report


def _source_file(path: Path, kind: str) -> Path:
    rows = generate.new_trips(generate.step_rng(7, 0), 0, 60)
    if kind == "csv":  # CSV holds flat columns only
        rows = rows.select([f.name for f in rows.schema if not pa.types.is_nested(f.type)])
        target = path / "trips.csv"
        pa_csv.write_csv(rows, target)
    else:
        target = path / "trips.parquet"
        pq.write_table(rows, target)
    return target


def job_source(field: str, value: str, path: Path) -> None:
    extra = {} if value == "generate" else {"job.source_path": str(_source_file(path, value))}
    _job(field, value, path, **extra, **{"job.batches": [{"operation": "upsert", "updates": 5, "inserts": 5}]})


def job_initial_operation(field: str, value: str, path: Path) -> None:
    _job(field, value, path)


def job_on_existing_table(field: str, value: str, path: Path) -> None:
    _job(field, value, path)  # an empty table: either value loads it
    if value == "overwrite":
        _job(field, value, path)  # the second run overwrites the first
    else:
        with pytest.raises(JobError, match="already has commits"):
            _job(field, value, path)


def job_batch_operation(field: str, value: str, path: Path) -> None:
    counts = {"upsert": {"updates": 4, "inserts": 4}, "insert": {"inserts": 4}, "delete": {"deletes": 4},
              "insert_overwrite": {"inserts": 4}}[value]  # fmt: skip
    overrides = {**BASE, **TRIPS, "table.base_path": str(path / "t"), "job.batches": [{"operation": value, **counts}]}
    report = run_job(HudiSettings.load(overrides=overrides, env=False))
    assert report.verified, report


def write_one(settings: HudiSettings) -> None:
    """Insert and read back (object-store cases: each request costs, so one write)."""
    base = settings.table.base_path or ""
    options = Components.from_settings(settings).storage_spec(base).options
    table = HudiTable.create(base, table_config_from_settings(settings), storage_options=options)
    WriteClient(table, settings).insert(_rows_table(FIRST))
    assert read_rows(HudiTable.open(base, storage_options=options)) == sorted(FIRST)


def on_s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Settings of a table in a fresh bucket of the moto server."""
    bucket = new_bucket(endpoint, monkeypatch)
    return {
        "table.base_path": f"s3://{bucket}/t",
        "storage.s3.endpoint_url": endpoint,
        "storage.s3.region": "us-east-1",
    }


def addressing_style(field: str, value: str, path: Path) -> None:
    """Run by :func:`test_documented_s3_value_works` (it needs the moto server)."""
    raise AssertionError("an S3 value runs in test_documented_s3_value_works")


Runner = Callable[[str, str, Path], None]


def streamer_operation(field: str, value: str, path: Path) -> None:
    """The streamer writes each round with the operation: two rounds of landing JSON files, the second
    updating ``a`` and adding ``d``; an upsert keeps one version of ``a``, the inserts keep both."""
    import json

    from hudi_framework.streamer import run_streamer

    landing = path / "landing"
    landing.mkdir()
    settings = settings_with(
        field,
        value,
        path / "t",
        **{"streamer.source": "json-dfs", "streamer.source_options": {"hoodie.streamer.source.dfs.root": str(landing)}},
    )
    for number, rows in enumerate([FIRST, CHANGES]):
        lines = (json.dumps(dict(zip((KEY, CITY, TS, V), r, strict=True))) for r in rows)
        (landing / f"{number}.json").write_text("\n".join(lines) + "\n")
        os.utime(landing / f"{number}.json", (1_700_000_000 + number, 1_700_000_000 + number))
        assert run_streamer(settings).rounds[0].rows == len(rows)
    table = HudiTable.open(str(path / "t"))
    operations = [table.timeline.read_commit_metadata(i).operation_type for i in table.timeline.commits_timeline()]
    assert operations == [value.upper(), value.upper()]
    expected = sorted({*FIRST, *CHANGES} - ({FIRST[0]} if value == "upsert" else set()))
    assert read_rows(table) == expected


RUNNERS: dict[str, Runner] = {
    "table.type": generic,
    "table.version": generic,
    "table.base_file_format": generic,
    "table.timeline_timezone": generic,
    "table.keygen_timestamp.timestamp_type": timestamp_type,
    "write.operation": operation,
    "write.engine": generic,
    "write.log_data_block_format": log_block_format,
    "write.parquet_compression_codec": compression_codec,
    "write.insert_dup_policy": insert_dup_policy,
    "write.concurrency_mode": generic,
    "write.failed_writes_policy": generic,
    "read.query_type": query_type,
    "read.data_skipping_source": data_skipping_source,
    "merger.mode": merge_mode,
    "services.compaction.trigger_strategy": compaction_trigger,
    "services.clean.policy": clean_policy,
    "services.clustering.layout_optimize_strategy": clustering_layout,
    "services.clustering.layout_optimize_build_method": clustering_build_method,
    "services.clustering.update_strategy": clustering_update_strategy,
    "storage.s3.addressing_style": addressing_style,
    "job.source": job_source,
    "streamer.operation": streamer_operation,
    "job.initial_operation": job_initial_operation,
    "job.on_existing_table": job_on_existing_table,
    BATCHES: job_batch_operation,
}
#: (field, value) -> the test that runs it instead (``path::name``).
COVERED_ELSEWHERE = {("write.engine", "spark"): "tests/spark/test_write_engine.py::test_engines_agree"}
_S3 = {"storage.s3.addressing_style"}


def _cases(*, s3: bool) -> list[Any]:
    return [
        pytest.param(field, value, id=f"{field}={value}")
        for field, values in sorted(documented_enums().items())
        for value in values
        if (field, value) not in COVERED_ELSEWHERE and (field in _S3) is s3
    ]


def test_every_enum_field_has_a_scenario() -> None:
    assert sorted(RUNNERS) == sorted(documented_enums())


def test_values_run_elsewhere_are_run_there() -> None:
    for (field, value), where in COVERED_ELSEWHERE.items():
        assert value in documented_enums()[field], where
        file, _, name = where.partition("::")
        assert f"def {name}(" in (ROOT / file).read_text(encoding="utf-8"), where


@pytest.mark.parametrize(("field", "value"), _cases(s3=False))
def test_documented_value_works(field: str, value: str, tmp_path: Path) -> None:
    RUNNERS[field](field, value, tmp_path)


@pytest.mark.s3
@pytest.mark.parametrize(("field", "value"), _cases(s3=True))
def test_documented_s3_value_works(field: str, value: str, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the moto server on 127.0.0.1 (botocore sends ``virtual`` requests to an IP endpoint path-style)."""
    write_one(HudiSettings.load(overrides={**BASE, **on_s3(endpoint, monkeypatch), field: value}, env=False))


# ------------------------------------------------------------------------------ components
_ON_MOTO = ("dynamodb", "s3")


def component_settings(field: str, name: str) -> dict[str, Any]:
    extra: dict[str, Any] = {field: name}
    if field == "table.key_generator":
        extra["table.partition_fields"] = {"non-partition": [], "custom": [f"{CITY}:SIMPLE"]}.get(name, [CITY])
        if name == "timestamp":
            extra.update({
                "table.partition_fields": [TS], "table.keygen_timestamp.timestamp_type": "EPOCHMILLISECONDS",
                "table.keygen_timestamp.output_dateformat": "yyyy",
            })  # fmt: skip
    if field == "lock.provider":  # only optimistic concurrency takes the lock
        extra["write.concurrency_mode"] = "optimistic_concurrency_control"
    return extra


def _component_cases(*, moto: bool) -> list[Any]:
    return [
        pytest.param(field, name, id=f"{field}={name}")
        for field, names in sorted(documented_components().items())
        for name in names
        if (name in _ON_MOTO) is moto
    ]


@pytest.mark.parametrize(("field", "name"), _component_cases(moto=False))
def test_documented_component_works(field: str, name: str, tmp_path: Path) -> None:
    extra = component_settings(field, name)
    write_three(HudiSettings.load(overrides={**BASE, "table.base_path": str(tmp_path), **extra}, env=False))


@pytest.mark.s3
@pytest.mark.parametrize(("field", "name"), _component_cases(moto=True))
def test_documented_moto_component_works(
    field: str, name: str, endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    extra = component_settings(field, name)
    if name == "dynamodb":  # a lock table on the moto server, created on first use
        extra["lock.options"] = {"table": "hudi-locks", "region": "us-east-1", "endpoint_url": endpoint}
        extra["table.base_path"] = str(tmp_path)
    else:
        extra.update(on_s3(endpoint, monkeypatch))
    write_one(HudiSettings.load(overrides={**BASE, **extra}, env=False))
