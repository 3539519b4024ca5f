"""Executor stages that turn incoming rows into write rows: keys, then pre-combine.

Keys (narrow, one ``mapInArrow``): each Arrow batch is conformed to the table schema and gets its
record key, partition path and delete flag from the same kernel function the local engine uses
(:func:`~hudi_framework.write.prepare.prepare_rows`), plus an *arrival sequence* column: the Spark
partition id in the high bits and the row's position in that partition in the low ones (what
``monotonically_increasing_id`` computes). Arrival order is what "later rows are newer" means for
pre-combining, and the order new keys are written in.

Pre-combine (``repartition`` by record key, one ``mapInArrow``): all versions of a key meet in one
task, which sorts its rows by arrival and calls the kernel's
:func:`~hudi_framework.write.prepare.combine_rows` (per key, or per key and partition path for a
non-global index, as the local engine). Each surviving row takes the arrival sequence of its
group's first version, as the local engine keeps rows in order of first appearance.

A caller may hand the pre-combine tasks a *finish* step (a picklable function of the combined rows
that keeps their order and appends columns): the narrow tagging of
:mod:`~hudi_framework.spark.tagging_stage` runs there, so the rows cross into Python once for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.contracts.merger import SUPERSEDES_OLDER_FIELD, MergeContext
from hudi_framework.contracts.merging.precombine import key_codes
from hudi_framework.errors import MergeError
from hudi_framework.spark.arrow_types import SparkSchema, to_spark_batches
from hudi_framework.spark.task_errors import carrying_errors
from hudi_framework.spark.worker import WorkerSpec, worker_components
from hudi_framework.write.prepare import PARTITION_PATH, RECORD_KEY, combine_rows, prepare_rows, prepared_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_framework.vocabulary import WriteOperation

__all__ = ["SEQ", "RowsFinish", "keyed_rows"]

#: Arrival sequence of a row (kernel bookkeeping, never written).
SEQ: Final = "_hudi_fw_seq"
_PARTITION_SHIFT: Final = 33
#: A last step of the pre-combine tasks: the same rows in the same order, with columns appended.
RowsFinish = Callable[[pa.Table], pa.Table]


def _partition_id() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.partitionId() if ctx is not None else 0


@carrying_errors
def _keys_task(
    spec: WorkerSpec, operation: WriteOperation, schema: pa.Schema, out: pa.Schema, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    keygen = worker_components(spec).write.keygen
    next_seq = _partition_id() << _PARTITION_SHIFT
    for batch in batches:
        if not batch.num_rows:
            continue
        rows = prepare_rows(operation, pa.Table.from_batches([batch]), schema, keygen)
        seq = np.arange(next_seq, next_seq + rows.num_rows, dtype=np.int64)
        next_seq += rows.num_rows
        yield from to_spark_batches(rows.append_column(SEQ, pa.array(seq)), out)


def _first_appearances(rows: pa.Table, *, by_partition: bool) -> np.ndarray:
    """Row index of the first version of every combine group, in order of first appearance."""
    codes, _ = key_codes(rows, MergeContext())
    if by_partition:
        partitions = pc.dictionary_encode(rows.column(PARTITION_PATH).combine_chunks())
        width = max(1, len(partitions.dictionary))
        codes = codes * width + np.asarray(partitions.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    _, first = np.unique(codes, return_index=True)
    return np.sort(first)


@dataclass(frozen=True)
class _Keying:
    """What a pre-combine task needs to key raw incoming rows itself (see :func:`keyed_rows`)."""

    operation: WriteOperation
    schema: pa.Schema


@carrying_errors
def _combine_task(
    spec: WorkerSpec,
    ordering_fields: tuple[str, ...],
    by_partition: bool,
    finish: RowsFinish | None,
    keying: _Keying | None,
    out: pa.Schema,
    batches: Iterable[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    parts = [b for b in batches if b.num_rows]
    if not parts:
        return
    components = worker_components(spec)
    merger = components.write.merger
    rows = pa.Table.from_batches(parts)
    if keying is not None:
        arrival = rows.column(SEQ)
        rows = prepare_rows(keying.operation, rows.drop_columns([SEQ]), keying.schema, components.write.keygen)
        rows = rows.append_column(SEQ, arrival)
    rows = rows.take(pc.sort_indices(rows, sort_keys=[(SEQ, "ascending")]))
    seq = rows.column(SEQ)
    rows = rows.drop_columns([SEQ])
    combined = combine_rows(merger, rows, ordering_fields, by_partition=by_partition)
    # Combined rows come in order of their group's first appearance (the merger contract).
    first = _first_appearances(rows, by_partition=by_partition)
    if combined.num_rows != len(first):
        raise MergeError(f"pre-combining {len(first)} keys returned {combined.num_rows} rows")
    combined = combined.append_column(SEQ, seq.take(pa.array(first)))
    if finish is not None:
        combined = finish(combined)  # tagging repeats a row per file group holding its key: SEQ too
    yield from to_spark_batches(combined, out)


def keyed_rows(
    frame: DataFrame,
    spec: WorkerSpec,
    operation: WriteOperation,
    schema: pa.Schema,
    *,
    combine: bool,
    by_partition: bool = False,
    partitions: int | None = None,
    finish: RowsFinish | None = None,
    finish_fields: Sequence[pa.Field] = (),
    key_source: str | None = None,
) -> DataFrame:
    """The write rows of ``frame``: conformed, keyed, flagged, and pre-combined if asked.

    Args:
        frame: Incoming rows.
        spec: How tasks rebuild the components.
        operation: The write operation.
        schema: The table's data schema.
        combine: Pre-combine duplicates of a key.
        by_partition: Pre-combine per record key *and* partition path (a non-global index).
        partitions: Tasks of the pre-combine shuffle (None: Spark's shuffle partitions, which
            adaptive execution may coalesce).
        finish: Run by each pre-combine task on its combined rows, :data:`SEQ` included (only
            with ``combine``): it keeps their order and appends ``finish_fields`` (it may repeat
            rows, as tagging does for a key in several file groups).
        finish_fields: The columns ``finish`` appends (Spark's Arrow types).
        key_source: With ``combine``: a column of ``frame`` whose values decide the record key one
            to one (:meth:`KeyGenerator.key_source_field`). The raw rows, numbered in arrival order
            by ``monotonically_increasing_id`` (the same numbers the keys stage gives), are then
            shuffled by it and each pre-combine task keys its own rows: one Python pass instead of two.

    Returns:
        A lazy DataFrame: data columns, ``_hoodie_record_key``, ``_hoodie_partition_path``,
        ``_hoodie_is_deleted``, the supersedes-older flag when combined, ``finish_fields``, and
        :data:`SEQ`.

    Raises:
        ValueError: ``finish`` without ``combine``.
    """
    if finish is not None and not combine:
        raise ValueError("a finish step runs in the pre-combine tasks: it needs combine=True")
    keyed = SparkSchema.of_arrow(prepared_schema(schema).append(pa.field(SEQ, pa.int64())))
    fields = [f for f in keyed.arrow if f.name != SEQ]
    combined = SparkSchema.of_arrow(
        pa.schema([*fields, pa.field(SUPERSEDES_OLDER_FIELD, pa.bool_()), *finish_fields, pa.field(SEQ, pa.int64())])
    )
    keying: _Keying | None = None
    if combine and key_source is not None:
        keying = _Keying(operation, schema)
        rows, by = frame.withColumn(SEQ, F.monotonically_increasing_id()), key_source
    else:
        rows = frame.mapInArrow(partial(_keys_task, spec, operation, schema, keyed.arrow), keyed.struct)
        if not combine:
            return rows
        by = RECORD_KEY
    shuffled = rows.repartition(partitions, by) if partitions else rows.repartition(by)
    ordering = tuple(spec.config.ordering_fields)
    task = partial(_combine_task, spec, ordering, by_partition, finish, keying, combined.arrow)
    return shuffled.mapInArrow(task, combined.struct)
