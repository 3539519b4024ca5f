"""The Spark adapter: the only package that imports ``pyspark``.

The names of this package are its public API (``docs/api.md``); its submodules are internal.

* :func:`spark_session` builds (or gets) a session whose Python workers run this interpreter and
  registers the ``hudi`` data source; :func:`register_data_source` registers it on a session you built,
  :func:`prestart_planners` starts Spark's read-planning processes ahead of its first read.
* :class:`HudiSparkTable` is a table for Spark users (delta-spark's ``DeltaTable`` shape):
  ``upsert``, ``delete``, ``update``, ``merge`` (a :class:`HudiMergeBuilder`), ``history``, table
  services and Apache Hudi's CALL procedures, each write one commit.
* :class:`SparkWriteClient` runs the write operations of :class:`hudi_framework.WriteClient` on a
  Spark ``DataFrame``.
* :func:`hudi_errors` turns the Spark exception of a failed ``format("hudi")`` read or write back
  into the project's own error class; :func:`recover_error` does it for an exception you caught::

    from hudi_framework.errors import SchemaMismatchError
    from hudi_framework.spark import hudi_errors

    try:
        with hudi_errors():
            df.write.format("hudi").options(**opts).mode("append").save(path)
    except SchemaMismatchError as e:
        ...

The session, the table API and the write client import ``pyspark`` and the write pipeline on first use, so Spark
workers (which import this package before their task modules) do not pay for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.plugin import lazy_exports
from hudi_framework.spark.task_errors import hudi_errors, recover_error

if TYPE_CHECKING:
    from hudi_framework.spark.merge_builder import HudiMergeBuilder
    from hudi_framework.spark.planner_prestart import prestart_planners
    from hudi_framework.spark.session import register_data_source, spark_session
    from hudi_framework.spark.table_api import HudiSparkTable
    from hudi_framework.spark.write_engine import SparkWriteClient

__all__ = [
    "HudiMergeBuilder",
    "HudiSparkTable",
    "SparkWriteClient",
    "hudi_errors",
    "prestart_planners",
    "recover_error",
    "register_data_source",
    "spark_session",
]

#: Names imported on first access (the same as the imports above; tests/unit/test_public_api.py
#: checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "HudiMergeBuilder": "hudi_framework.spark.merge_builder",
    "HudiSparkTable": "hudi_framework.spark.table_api",
    "SparkWriteClient": "hudi_framework.spark.write_engine",
    "prestart_planners": "hudi_framework.spark.planner_prestart",
    "register_data_source": "hudi_framework.spark.session",
    "spark_session": "hudi_framework.spark.session",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
