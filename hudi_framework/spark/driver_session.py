"""The driver's SparkSession, reached from the data source's commit process.

Spark runs a Python data source writer's ``commit`` in a Python worker that the driver's JVM starts;
that process has no SparkSession (pyspark offers none there). It runs on the driver's machine, after
every write task finished, while the driver's JVM waits for it: it can start Spark jobs of its own
through the driver JVM's Py4J gateway, as the driver's Python process does. What it needs is the
gateway's port and secret, which only the driver's Python process knows. :func:`publish_handle`
writes them to a file readable by its owner only, in the Python driver's temporary directory under
Spark's local directory (deleted when the JVM stops); the data source registered by that session
carries the file's path (never the secret: the registration also travels to executors), and
:func:`attach_session` opens a session on the same JVM from it.

The attached context shares the driver's ``SparkContext`` (its executors, configuration and jobs);
it is never stopped by the commit process, which would stop the driver's.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

__all__ = ["attach_session", "publish_handle"]

_log = logging.getLogger(__name__)

_HANDLE_FILE = "hudi-driver-gateway.json"


def publish_handle(session: SparkSession) -> str | None:
    """Write ``session``'s gateway port and secret for the commit process; return the file's path
    (a plain string: the registration carries it to every task, which then imports nothing to
    unpickle it). None: no Py4J gateway (Spark Connect) or no temporary directory."""
    try:
        sc = session.sparkContext
        params = sc._gateway.gateway_parameters  # type: ignore[union-attr]
        port, secret = int(params.port), str(params.auth_token)
        directory = Path(str(sc._temp_dir))
    except Exception:  # no JVM handle: the commit merges where it runs
        return None
    path = directory / _HANDLE_FILE
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"port": port, "secret": secret}, f)
    return str(path)


def attach_session(handle: str) -> SparkSession | None:
    """A session on the driver's JVM, from the commit process (None, logged, when it cannot be had:
    the caller then does the work where it runs)."""
    active = SparkContext._active_spark_context
    if active is not None:  # this process attached before (Spark reuses its workers), or is the driver
        return SparkSession.getActiveSession() or SparkSession(active)
    try:
        with open(handle) as f:
            info = json.load(f)
        return _attach(int(info["port"]), str(info["secret"]))
    except Exception as exc:
        _log.warning("cannot reach the driver's Spark session from the commit (%s): merging in the commit", exc)
        return None


def _attach(port: int, secret: str) -> SparkSession:
    from py4j.clientserver import ClientServer, JavaParameters, PythonParameters  # type: ignore[import-untyped]
    from py4j.java_gateway import java_import  # type: ignore[import-untyped]

    gateway = ClientServer(
        java_parameters=JavaParameters(port=port, auth_token=secret, auto_convert=True),
        python_parameters=PythonParameters(port=0, eager_load=False),
    )
    # What pyspark's own gateway imports, for the names its Python classes use unqualified.
    for name in (
        "org.apache.spark.SparkConf",
        "org.apache.spark.api.java.*",
        "org.apache.spark.api.python.*",
        "org.apache.spark.resource.*",
        "org.apache.spark.sql.*",
        "org.apache.spark.sql.api.python.*",
        "scala.Tuple2",
    ):
        java_import(gateway.jvm, name)
    jvm = gateway.jvm
    driver_context = jvm.org.apache.spark.SparkContext.getOrCreate()  # the driver's: it exists
    jsc = jvm.org.apache.spark.api.java.JavaSparkContext.fromSparkContext(driver_context)
    sc = SparkContext(gateway=gateway, jsc=jsc, conf=SparkConf(_jconf=jsc.getConf()))
    return SparkSession(sc, jsparkSession=jvm.org.apache.spark.sql.SparkSession.active())
