"""The Python worker daemon of hudi_framework sessions: pyspark's own, with our task modules preloaded.

Spark forks every Python worker of an executor from one daemon process. pyspark's daemon imports
nothing before forking, so each new worker imports pyarrow, pydantic and this project on its
first task (1-1.5 s of CPU per worker, paid inside the first jobs of every write and again
whenever Spark replaces a worker that idled for a minute). This daemon imports the modules our
tasks run before it forks, so workers start with them loaded (pages shared copy-on-write).

:func:`~hudi_framework.spark.session.spark_session` selects it with
``spark.python.daemon.module=hudi_framework.spark.daemon``; a session built elsewhere can set the
same option (the interpreter of its workers must have this project installed).

Forking after these imports is safe: the only threads they start are jemalloc's background thread
(pyarrow) and OpenBLAS's pool (numpy), and both libraries re-initialise them in a forked child.
If a preload fails, the daemon still starts and workers import what they need themselves.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from typing import Final

__all__ = ["PRELOADED", "main", "preload"]

#: The modules Spark tasks of this project unpickle functions from (their imports come with them).
PRELOADED: Final = (
    "pyarrow",
    "pyarrow.compute",
    "pyarrow.parquet",
    "numpy",
    "pyspark.worker",
    "hudi_framework.spark.keys_stage",
    "hudi_framework.spark.tagging_stage",
    "hudi_framework.spark.write_stage",
    "hudi_framework.spark.datasource",
)


def preload(modules: tuple[str, ...] = PRELOADED) -> list[str]:
    """Import ``modules``; returns the names that failed (reported on stderr, never raised)."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # a preload is an optimisation: the worker imports the module again
            failed.append(name)
            print(f"hudi_framework daemon: preloading {name} failed", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
    return failed


def main() -> None:
    """Preload, then run pyspark's daemon (it reads the worker module from ``sys.argv``)."""
    preload()
    from pyspark import daemon

    daemon.manager()


if __name__ == "__main__":
    main()
