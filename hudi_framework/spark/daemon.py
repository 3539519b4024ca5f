"""The Python worker daemon of hudi_framework sessions: pyspark's own, with our task modules preloaded.

Spark forks every Python worker of an executor from one daemon process. pyspark's daemon imports
nothing before forking, so each new worker imports pyarrow, pydantic and this project on its
first task (1-1.5 s of CPU per worker, paid inside the first jobs of every write and again
whenever Spark replaces a worker that idled for a minute). This daemon imports the modules our
tasks run before it forks, and the installed plugins with the key generators, mergers and indexes
they name, so workers start with them loaded (pages shared copy-on-write).

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
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from hudi_framework.plugin.manager import HudiPluginManager

__all__ = ["PRELOADED", "TASK_COMPONENT_KINDS", "main", "preload", "preload_components"]

#: The modules Spark tasks of this project unpickle functions from (their imports come with them).
PRELOADED: Final = (
    "pyarrow",
    "pyarrow.compute",
    "pyarrow.parquet",
    "numpy",
    # pyarrow imports pandas on a task's first Parquet write or Arrow UDF batch (1 s of CPU per worker).
    "pandas",
    "pyspark.worker",
    "hudi_framework.spark.keys_stage",
    "hudi_framework.spark.tagging_stage",
    "hudi_framework.spark.write_stage",
    "hudi_framework.spark.datasource",
    # The data source imports the read path where it runs (its planner processes import little).
    "hudi_framework.read.reader",
    "hudi_framework.read.merged",  # merge-on-read tasks (the reader imports it where it merges)
    "hudi_framework.read.splits",
    "hudi_framework.runtime.table",
    # Table services' tasks (compaction operations, big cleans' deletes) started from Spark.
    "hudi_framework.spark.service_runner",
    "hudi_framework.write.compactor",
    "hudi_framework.write.clusterer",
    "hudi_framework.write.log_compactor",
    "hudi_framework.write.cleaner",
)


#: Component kinds whose implementations every write task builds (key generator, merger, index).
#: Plugins name them lazily, so importing the plugins alone does not import them.
TASK_COMPONENT_KINDS: Final = ("KEYGEN", "MERGER", "INDEX")


def preload(modules: tuple[str, ...] = PRELOADED) -> list[str]:
    """Import ``modules``; returns the names that failed (reported on stderr, never raised)."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # a preload is an optimisation: the worker imports the module again
            failed.append(name)
            _report(name)
    return failed


def preload_components(
    kinds: tuple[str, ...] = TASK_COMPONENT_KINDS, *, manager: HudiPluginManager | None = None
) -> list[str]:
    """Import the installed plugins and the implementations of ``kinds`` they name, as a write
    task's first :func:`~hudi_framework.spark.worker.worker_components` would; returns the
    components that failed (reported on stderr, never raised).

    Args:
        kinds: :class:`~hudi_framework.plugin.registry.ComponentKind` names.
        manager: The plugins to look in (default: the ones this process's settings load).
    """
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.plugin.registry import ComponentKind
    from hudi_framework.runtime.components import build_components

    try:
        # The plugins this process's settings load (``HUDI_PLUGINS__*``), as a task would build them.
        registry = build_components(HudiSettings.load(), manager).registry
    except Exception:
        _report("the installed plugins")
        return ["plugins"]
    failed = []
    for kind in kinds:
        for component in registry.specs(ComponentKind.named(kind)):
            try:
                component.spec.load_factory()
                component.spec.load_options_model()
            except Exception:  # the task that needs it reports the error properly
                failed.append(f"{kind.lower()} {component.spec.name}")
                _report(f"{kind.lower()} {component.spec.name!r}")
    return failed


def _report(what: str) -> None:
    print(f"hudi_framework daemon: preloading {what} failed", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)


def main() -> None:
    """Preload, then run pyspark's daemon (it reads the worker module from ``sys.argv``)."""
    preload()
    preload_components()
    from pyspark import daemon

    daemon.manager()


if __name__ == "__main__":
    main()
