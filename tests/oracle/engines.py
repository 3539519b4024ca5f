"""One table, written by either engine through the same two calls; the write-operation and key
generator cases use it to let one engine start a table and the other write on top of it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config
from tests.oracle.client import ApacheHudi

ENGINES = ("apache_hudi", "hudi_framework")
PARTITIONS_TO_DELETE = "hoodie.datasource.write.partitions.to.delete"


def other(engine: str) -> str:
    """The engine that is not ``engine``."""
    return ENGINES[1 - ENGINES.index(engine)]


class TableWriter(Protocol):
    """Writes to one table with one engine."""

    name: str

    def write(self, rows: pa.Table, operation: str) -> None:
        """Run ``operation`` on ``rows``."""

    def delete_partitions(self, partitions: Sequence[str]) -> None:
        """Drop whole partitions, named by their paths (a ``delete_partition`` replacecommit)."""


@dataclass
class ApacheHudiWriter:
    """Apache Hudi's Spark datasource, with the table's options on every write."""

    apache_hudi: ApacheHudi
    path: Path
    options: Mapping[str, str]
    name: str = "apache_hudi"

    def write(self, rows: pa.Table, operation: str) -> None:
        self.apache_hudi.write(self.path, rows, self.options, operation)

    def delete_partitions(self, partitions: Sequence[str]) -> None:
        # Its Spark datasource takes the paths as an option; the rows (none here) then name nothing.
        options = {**self.options, PARTITIONS_TO_DELETE: ",".join(partitions)}
        self.apache_hudi.write(self.path, _NO_ROWS, options, "delete_partition")


@dataclass
class OurWriter:
    """``WriteClient`` on the table as it is on storage (reopened for every write)."""

    path: Path
    options: Mapping[str, str] = field(default_factory=dict)
    name: str = "hudi_framework"

    def _client(self, options: Mapping[str, str]) -> WriteClient:
        settings = HudiSettings.from_hoodie_options(dict(options), env=False)
        return WriteClient(HudiTable.open(str(self.path), settings=settings), settings)

    def write(self, rows: pa.Table, operation: str) -> None:
        self._client(self.options).write(rows, operation)

    def delete_partitions(self, partitions: Sequence[str]) -> None:
        # The same option Apache Hudi's writer takes (``format("hudi")`` passes it so).
        options = {**self.options, PARTITIONS_TO_DELETE: ",".join(partitions)}
        self._client(options).write(_NO_ROWS, "delete_partition")


_NO_ROWS = pa.table(
    {"id": pa.array([], pa.string()), "city": pa.array([], pa.string()), "ts": pa.array([], pa.int64())}
)


def open_writer(
    engine: str,
    apache_hudi: ApacheHudi,
    path: Path,
    their_options: Mapping[str, str],
    *,
    create: Mapping[str, Any] | None = None,
    our_options: Mapping[str, str] | None = None,
) -> TableWriter:
    """A writer of ``engine`` on ``path``; ``create`` (``new_table_config`` arguments) creates the
    table first when ``engine`` is ours and the table does not exist yet."""
    if engine == "apache_hudi":
        return ApacheHudiWriter(apache_hudi, path, their_options)
    if create is not None and not (path / ".hoodie").exists():
        HudiTable.create(str(path), new_table_config(path.name, **create))
    return OurWriter(path, our_options or {})
