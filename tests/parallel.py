"""The suite on several worker processes (pytest-xdist): which tests share a worker, the order
work is handed out, and the session summaries gathered from the workers.

Tests needing the SparkSession run on one worker, those on the standalone cluster on one, those
needing the Apache Hudi oracle on one, those needing the Kafka broker on one (each starts its JVM
once), and every other test module is a unit of its own (its module-scoped fixtures are built
once). A Spark test marked ``spark_process`` starts Spark in a process of its own (``hudi-fw run``, a
script) and never touches the session, so it is a unit of its own beside the Spark group instead of
queueing behind it. The JVM groups are handed out first, to different workers where there are enough, since
they are the longest units; the rest follow largest first. The cluster's driver is a process of its
own (tests/cluster/driver.py), so its group may share a worker with the Spark group.

Without ``-n`` (``-n 0``) nothing here acts and the summaries come from this process.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest

from tests.faults.campaign.report import RESULTS, Failure, TrialResult, record, summary_lines
from tests.oracle.compare import TALLY, Tally

SPARK_GROUP = "jvm-spark"
ORACLE_GROUP = "jvm-oracle"
KAFKA_GROUP = "jvm-kafka"
#: The standalone cluster (tests/cluster): its master, workers and driver are started once.
CLUSTER_GROUP = "jvm-cluster"
#: The most workers ``-n auto`` starts: each may hold a Spark or oracle JVM (about 1 GiB each).
MAX_AUTO_WORKERS = 4
_FAULTS = "tests/faults/"


def group_of(item: pytest.Item) -> str:
    """The work unit ``item`` belongs to."""
    names = getattr(item, "fixturenames", ())
    if "standalone_cluster" in names or item.get_closest_marker("cluster") is not None:
        return CLUSTER_GROUP  # before Spark: its driver is a process of its own, never this one's session
    if "apache_hudi" in names:
        return ORACLE_GROUP
    if item.get_closest_marker("spark_process") is not None and "spark" not in names:
        return f"{item.nodeid.split('::', 1)[0]}::spark-process"
    if "spark" in names or item.get_closest_marker("spark") is not None:
        return SPARK_GROUP  # a Spark test needing Kafka starts a (smaller) broker there
    if "kafka_broker" in names or item.get_closest_marker("kafka") is not None:
        return KAFKA_GROUP
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before xdist reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = hasattr(config, "workerinput") and config.getvalue("loadgroup")
    for item in items:
        group = group_of(item)
        item.add_marker(pytest.mark.xdist_group(group))
        if grouping:
            _suffix_nodeid(item, group)


def _suffix_nodeid(item: pytest.Item, group: str) -> None:
    """Give a worker's item the ``<nodeid>@<group>`` id xdist's group scheduler reads.

    xdist (3.8) sets ``item._nodeid`` for that, which pytest 9.2 no longer reads (its ``nodeid`` comes
    from the structured ``item._id``): without this, every test would be a unit of its own and each
    worker would start the Spark, oracle and Kafka JVMs its tests need.
    """
    node_id = getattr(item, "_id", None)
    if node_id is None or str(node_id).endswith(f"@{group}"):
        return  # an older pytest: xdist's own suffix works
    item._id = type(node_id).parse(f"{node_id}@{group}")  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return max(1, min(os.cpu_count() or 1, MAX_AUTO_WORKERS))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None  # xdist's own scheduler for the mode asked for
    from tests.parallel_scheduler import JvmFirstScheduling

    return JvmFirstScheduling(config, log)


# -- summaries: each worker ships its results; the controller adds them up and prints them ---------


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = getattr(session.config, "workeroutput", None)
    if out is None:
        return  # not a worker
    out["fault_trials"] = [dataclasses.asdict(r) for r in session.config.stash.get(RESULTS, [])]
    tally = session.config.stash.get(TALLY, None)
    if tally is not None:
        out["oracle_tally"] = {**dataclasses.asdict(tally), "tables": sorted(tally.tables)}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    out: dict[str, Any] = getattr(node, "workeroutput", {}) or {}
    config: pytest.Config = node.config
    trials = out.get("fault_trials", [])
    record(config, [TrialResult(**{**t, "failures": [Failure(**f) for f in t["failures"]]}) for t in trials])
    shipped = out.get("oracle_tally")
    if shipped is not None:
        tally = config.stash.setdefault(TALLY, Tally())
        tally.tables.update(shipped["tables"])
        tally.comparisons += shipped["comparisons"]
        tally.agreements += shipped["agreements"]
        tally.rows += shipped["rows"]
        tally.disagreements += shipped["disagreements"]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The oracle's tally, the number of fault scenarios run and passed, and the fault campaign's
    trials per fault kind."""
    tally = config.stash.get(TALLY, None)
    if tally is not None:
        terminalreporter.write_line(tally.summary())
        for line in tally.disagreements:
            terminalreporter.write_line(f"DISAGREE {line.splitlines()[0]}")
    stats = terminalreporter.stats
    ran = [r for key in ("passed", "failed", "error") for r in stats.get(key, []) if _is_fault(r)]
    passed = [r for r in stats.get("passed", []) if _is_fault(r)]
    if ran:
        terminalreporter.write_line(f"fault scenarios: {len(ran)} ran, {len(passed)} passed")
    for line in summary_lines(config.stash.get(RESULTS, [])):
        terminalreporter.write_line(line)


def _is_fault(report: object) -> bool:
    nodeid = getattr(report, "nodeid", "")
    when = getattr(report, "when", "call")
    return isinstance(nodeid, str) and nodeid.startswith(_FAULTS) and when == "call"
