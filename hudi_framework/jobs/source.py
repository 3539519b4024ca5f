"""Where a job's rows come from: the generated ``trips`` sample, or a Parquet or CSV file.

A source gives the initial rows, then rows for each change batch: new keys (inserts), new versions
of live rows (updates) and samples of live rows (deletes). A file source writes its first
``job.rows`` rows and keeps the rest for inserts; its updates add one unit to the ordering fields so
that they win over the stored versions.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from decimal import Decimal
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from typing_extensions import override

from hudi_framework.config.job import JobSettings, JobSource
from hudi_framework.errors import JobError
from hudi_framework.jobs import generate
from hudi_framework.jobs.model import joined_keys
from hudi_framework.table.table_config import TableConfig

__all__ = ["FileSource", "GeneratedSource", "SampleSource", "open_source"]


class SampleSource(abc.ABC):
    """Rows for the initial load and the change batches of one job run."""

    @property
    @abc.abstractmethod
    def schema(self) -> pa.Schema:
        """Schema of every table this source returns."""

    @abc.abstractmethod
    def initial(self) -> pa.Table:
        """The rows of the initial write."""

    @abc.abstractmethod
    def inserts(self, rng: np.random.Generator, count: int, *, partitions: int | None = None) -> pa.Table:
        """Up to ``count`` rows with keys not written before.

        Args:
            rng: The step's random generator.
            count: Rows wanted.
            partitions: For ``insert_overwrite``: spread the rows over this many partitions, where the
                source can choose (the generated one can).
        """

    @abc.abstractmethod
    def updates(self, rng: np.random.Generator, live: pa.Table, count: int) -> pa.Table:
        """New versions of up to ``count`` rows of ``live``, with the same keys and partitions."""


class GeneratedSource(SampleSource):
    """The deterministic ``trips`` dataset of :mod:`hudi_framework.jobs.generate`.

    Args:
        seed: The job's seed.
        rows: Rows of the initial load (keys ``0 .. rows - 1``; inserts continue from there).
    """

    def __init__(self, seed: int, rows: int) -> None:
        """Prepare; nothing is generated yet."""
        self._seed = seed
        self._rows = rows
        self._next_id = rows

    @property
    @override
    def schema(self) -> pa.Schema:
        return generate.TRIPS_SCHEMA

    @override
    def initial(self) -> pa.Table:
        return generate.new_trips(generate.step_rng(self._seed, 0), 0, self._rows)

    @override
    def inserts(self, rng: np.random.Generator, count: int, *, partitions: int | None = None) -> pa.Table:
        cities: Sequence[str] = generate.CITIES
        if partitions is not None:
            chosen = rng.choice(len(generate.CITIES), size=min(partitions, len(generate.CITIES)), replace=False)
            cities = [generate.CITIES[i] for i in sorted(chosen)]
        rows = generate.new_trips(rng, self._next_id, count, cities=cities)
        self._next_id += count
        return rows

    @override
    def updates(self, rng: np.random.Generator, live: pa.Table, count: int) -> pa.Table:
        return generate.updated_trips(rng, live, count)


class FileSource(SampleSource):
    """Rows of a Parquet or CSV file: the first ``rows`` are loaded, the rest feed inserts.

    Args:
        data: The file's rows (record keys unique).
        rows: Rows of the initial load.
        ordering_fields: Fields that updates advance by one unit.
    """

    def __init__(self, data: pa.Table, rows: int, ordering_fields: Sequence[str]) -> None:
        """Split ``data`` into the initial rows and the reserve for inserts."""
        self._data = data
        self._rows = min(rows, data.num_rows)
        self._next = self._rows
        self._ordering = tuple(ordering_fields)

    @property
    @override
    def schema(self) -> pa.Schema:
        return self._data.schema

    @override
    def initial(self) -> pa.Table:
        return self._data.slice(0, self._rows)

    @override
    def inserts(self, rng: np.random.Generator, count: int, *, partitions: int | None = None) -> pa.Table:
        rows = self._data.slice(self._next, count)
        self._next += rows.num_rows
        return rows

    @override
    def updates(self, rng: np.random.Generator, live: pa.Table, count: int) -> pa.Table:
        chosen = generate.sample_rows(rng, live, count)
        for name in self._ordering:
            index = chosen.schema.get_field_index(name)
            chosen = chosen.set_column(index, chosen.schema.field(index), _one_unit_later(chosen.column(name)))
        return chosen


def _one_unit_later(column: pa.ChunkedArray) -> pa.ChunkedArray:
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return pc.add(column, pa.scalar(1, kind))
    if pa.types.is_decimal(kind):
        return pc.add(column, pa.scalar(Decimal(1))).cast(kind)
    if pa.types.is_timestamp(kind) or pa.types.is_date32(kind) or pa.types.is_date64(kind):
        storage = pa.int64() if not pa.types.is_date32(kind) else pa.int32()
        return pc.add(column.cast(storage), pa.scalar(1, storage)).cast(kind)
    return column  # strings and others: a tie, which the incoming version wins


_READERS: Final = {
    JobSource.PARQUET: lambda path: pq.read_table(path),
    JobSource.CSV: lambda path: pa_csv.read_csv(path),
}


def _check_fields(schema: pa.Schema, config: TableConfig, source: str) -> None:
    wanted = {
        "record key": config.record_key_fields,
        "partition": config.partition_fields,
        "ordering": config.ordering_fields,
    }
    for role, fields in wanted.items():
        missing = [f for f in fields if f not in schema.names]
        if missing:
            raise JobError(f"{role} field(s) {missing} of table {config.name!r} are not columns of {source}")


def _check_generated_fields(config: TableConfig) -> None:
    fits = (
        tuple(config.record_key_fields) == (generate.KEY_FIELD,)
        and set(config.partition_fields) <= {generate.PARTITION_FIELD}
        and set(config.ordering_fields) <= {generate.ORDERING_FIELD}
    )
    if not fits:
        raise JobError(
            f"the generated trips dataset needs table.record_key_fields = [{generate.KEY_FIELD!r}], "
            f"partition_fields [{generate.PARTITION_FIELD!r}] or [], ordering_fields [{generate.ORDERING_FIELD!r}] "
            f"or []; table {config.name!r} has {list(config.record_key_fields)}, "
            f"{list(config.partition_fields)}, {list(config.ordering_fields)}"
        )


def open_source(job: JobSettings, config: TableConfig) -> SampleSource:
    """The source ``job`` names, checked against the table's key, partition and ordering fields.

    Raises:
        JobError: The data lacks a key, partition or ordering field, holds a record key twice, or the
            file cannot be read.
    """
    if job.source is JobSource.GENERATE:
        _check_generated_fields(config)
        return GeneratedSource(job.seed, job.rows)
    path = job.source_path or ""
    try:
        data = _READERS[job.source](path)
    except (OSError, pa.ArrowInvalid) as e:
        raise JobError(f"cannot read {job.source.value} source {path!r}: {e}") from e
    _check_fields(data.schema, config, repr(path))
    keys = joined_keys(data, config.record_key_fields)
    if pc.count_distinct(keys).as_py() != data.num_rows:
        raise JobError(f"{path!r} holds some record keys more than once; a job needs unique keys")
    return FileSource(data.combine_chunks(), job.rows, config.ordering_fields)
