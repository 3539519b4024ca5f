"""Starting Spark's planner processes for ``format("hudi")`` while a session starts, not on its first read.

Spark plans a Python data source in two Python processes of its own (``create_data_source`` for
the schema, ``plan_data_source_read`` for the partitions), each a daemon started on the session's
first use of any Python data source (a fresh interpreter importing pyspark from its zip, which keeps
no bytecode) that forks a planner, kept for the next use (``spark.python.worker.reuse``). On a
fresh session these starts, and the planners' imports of pyarrow and the read path, come before
the first read's tasks: about 2-3 s of its time on 2 cores.

:func:`prestart_planners` plans a read of :class:`PlannerPrestartSource`, a data source of no rows
whose ``schema()`` and ``reader()`` import what ``format("hudi")``'s planners import, so both
daemons are up and both planners have the read path loaded when the first real read comes. The
daemons live as long as the session; Spark closes a planner idle for a minute, and a read after
that forks a new one from the running daemon (it pays for the imports again, not for the
interpreter and pyspark).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import BooleanType, StructField, StructType

from hudi_framework.spark.daemon import preload

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["PLANNER_MODULES", "PRESTART_SOURCE", "PlannerPrestartSource", "prestart_planners"]

_LOG = logging.getLogger(__name__)

#: The name the prestart source is registered under (never a table format).
PRESTART_SOURCE: Final = "hudi_framework_planner_prestart"

#: What the schema's planner imports for a snapshot read (it also plans the read): the data source,
#: the table-opening path (plugins, storage, timeline, metadata-table listing) and Arrow's Spark
#: types. tests/acceptance/test_spark_planner_imports.py checks that a read planned after these
#: imports little more.
PLANNER_MODULES: Final = (
    "pyarrow",
    # pyarrow imports pandas (when installed, as PySpark's Arrow support needs) at its first
    # conversion of a Python value, which planning a read makes.
    "pandas",
    "pyarrow.pandas_compat",
    "pyarrow.dataset",
    "pyarrow.acero",
    "pyspark.sql.pandas.types",
    "hudi_framework.spark.datasource",
    "hudi_framework.spark.options",
    "hudi_framework.read.reader",
    "hudi_framework.read.schema",
    "hudi_framework.read.snapshot",
    "hudi_framework.read.splits",
    "hudi_framework.runtime.table",
    "hudi_framework.plugin.manager",
    "hudi_framework.metadata.reader",
)

#: What the partitions' planner imports: the data source and its pickled splits.
READER_MODULES: Final = (
    "hudi_framework.spark.datasource",
    "hudi_framework.read.splits",
)


def _plugins() -> None:
    """Load the installed plugins' entry points, as opening a table does (the storage plugin)."""
    try:
        from hudi_framework.plugin.manager import build_plugin_manager

        build_plugin_manager()
    except Exception:  # an optimisation only: the real planner loads them itself
        _LOG.debug("planner prestart: cannot load the plugins", exc_info=True)


class _NoRows(DataSourceReader):
    def partitions(self) -> Sequence[InputPartition]:
        preload(READER_MODULES)
        return []

    def read(self, partition: InputPartition) -> Iterator[tuple[bool]]:
        return iter(())


class PlannerPrestartSource(DataSource):
    """A data source of no rows whose planners import what ``format("hudi")``'s import."""

    @classmethod
    def name(cls) -> str:
        return PRESTART_SOURCE

    def schema(self) -> StructType:
        preload(PLANNER_MODULES)
        _plugins()
        return StructType([StructField("ready", BooleanType())])

    def reader(self, schema: StructType) -> DataSourceReader:
        return _NoRows()


def prestart_planners(session: SparkSession) -> threading.Thread:
    """Plan (and run) an empty read of :class:`PlannerPrestartSource` in ``session`` on a
    background thread, which is returned; a failure is logged at debug level, never raised.

    The session's first ``format("hudi")`` read then finds both planner processes started and
    their imports done. Register the ``hudi`` data source from the same session first (as
    :func:`~hudi_framework.spark.session.spark_session` does): the planners are shared by data
    sources registered with the same Python environment.
    """
    session.dataSource.register(PlannerPrestartSource)

    def run() -> None:
        try:
            session.read.format(PRESTART_SOURCE).load().collect()
        except Exception:  # the session stopped meanwhile, or Spark refused: the first read starts them
            _LOG.debug("planner prestart failed", exc_info=True)

    thread = threading.Thread(target=run, name="hudi-planner-prestart", daemon=True)
    thread.start()
    return thread
