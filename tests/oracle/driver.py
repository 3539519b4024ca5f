"""Apache Hudi's Spark bundle behind a process boundary: the oracle's side of the harness.

Runs in the oracle's own venv (PySpark 3.5, see ``provision.py``), never in the project's: it
imports neither ``hudi_framework`` nor pyarrow. One long-lived Spark session (local[2], Kryo, the Hudi
SQL extension and catalog as Apache Hudi's quickstart sets them, UI off, bound to 127.0.0.1) serves
JSON-lines requests read from stdin; each response is one JSON line on the protocol stream. Rows travel
as Parquet files in directories the caller names.

Requests (``{"op": ...}``):

- ``write``: ``path``, ``options`` (hoodie options), ``operation``, ``data`` (a Parquet file or
  directory of rows), ``mode`` (``append`` by default, ``overwrite``) -> ``{"ok": true}``;
- ``read``: ``path``, ``options`` (query type, ``as.of.instant``, begin/end instant times,
  ``hoodie.metadata.enable``...), ``out`` (a directory to write the rows to) -> ``{"ok": true, "rows": n}``;
- ``sql``: ``query`` (a CALL procedure or any statement) -> ``{"ok": true, "rows": [{column: text}]}``;
- ``lock``: ``provider`` (a ``LockProvider`` class), ``options`` (hoodie options), ``action`` (``try_lock``
  with ``timeout_ms``, or ``unlock``) on a fresh provider instance -> ``{"ok": true, "acquired": bool}``;
- ``scan``: ``path``, ``options``: read every row and column into Spark's ``noop`` sink (a read alone,
  for the benchmarks) -> ``{"ok": true}``;
- ``hfile``: Apache Hudi's own HFile reader and writer (``org.apache.hudi.io.hfile``), bytes as base64:
  ``action`` ``read`` with ``path``, ``file_info`` and ``meta`` (names to fetch) -> ``{"ok": true,
  "entries": n, "keys": [...], "values": [...], "file_info": {name: b64}, "meta": {name: b64}}``
  (absent names are left out); ``action`` ``write`` with ``path``, ``keys`` (text), ``values``,
  ``file_info``/``meta`` ({name: b64}, in append order), ``codec`` (``gz``/``none``), ``block_size``,
  ``created`` (ms, the file's creation time) -> ``{"ok": true}``; ``action`` ``records`` with ``path``,
  ``fields`` and ``probe`` (keys) reads a base file with ``HoodieNativeAvroHFileReader`` -> ``{"ok": true,
  "min", "max", "total", "rows": [{field: text}], "bloom_type", "bloom_contains": [bool per probe]}``;
- ``ping``, ``shutdown``.

A failed request answers ``{"ok": false, "error": <Java or Python class>, "message": ..., "trace": ...}``
and the session stays up.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any


def _protocol_stream() -> Any:
    """Keep fd 1 for the protocol alone: anything else (the JVM's stdout, stray prints) goes to stderr."""
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


def _session(jar: str, warehouse: str, overrides: dict[str, str]) -> Any:
    from pyspark.sql import SparkSession

    # The opens: Apache Hudi's bloom index with hoodie.bloom.index.use.metadata broadcasts a file-system
    # view whose lock Kryo cannot reach on Java 17 otherwise (docs/compatibility.md).
    java_opts = (
        "-Duser.timezone=UTC -XX:TieredStopAtLevel=1 --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
    )
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("hudi-oracle")
        .config("spark.jars", jar)
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.warehouse.dir", warehouse)
    )
    for key, value in overrides.items():  # the benchmarks' session settings (no start-up tuning)
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _write(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    df = spark.read.parquet(req["data"])
    writer = df.write.format("hudi").options(**req.get("options", {}))
    writer = writer.option("hoodie.datasource.write.operation", req.get("operation", "upsert"))
    writer.mode(req.get("mode", "append")).save(req["path"])
    return {"ok": True}


def _read(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    df = spark.read.format("hudi").options(**req.get("options", {})).load(req["path"])
    # INT64 micros in the hand-off file (Spark 3.5 writes INT96 by default), only for this write.
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        df.write.mode("overwrite").parquet(req["out"])
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")
    return {"ok": True, "rows": spark.read.parquet(req["out"]).count()}


def _filtered_read(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    """A read with a filter Spark pushes down (Hudi's data skipping sees it), and the number of files
    its scan read (the scan's ``numFiles`` metric, adaptive execution off so the plan is final)."""
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        df = spark.read.format("hudi").options(**req.get("options", {})).load(req["path"]).where(req["where"])
        df.collect()
        files = 0
        leaves = df._jdf.queryExecution().executedPlan().collectLeaves()
        for i in range(leaves.size()):
            metric = leaves.apply(i).metrics().get("numFiles")
            if metric.isDefined():
                files += int(metric.get().value())
        spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        df.write.mode("overwrite").parquet(req["out"])
    finally:
        spark.conf.unset("spark.sql.parquet.outputTimestampType")
        spark.conf.unset("spark.sql.adaptive.enabled")
    return {"ok": True, "files": files}


def _sql(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    df = spark.sql(req["query"])
    rows = [{k: (None if v is None else str(v)) for k, v in row.asDict().items()} for row in df.collect()]
    return {"ok": True, "rows": rows}


def _lock(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    """Apache Hudi's own lock provider, outside any write: hold a table's lock as its writers would."""
    jvm = spark._jvm
    props = jvm.org.apache.hudi.common.config.TypedProperties()
    for key, value in req.get("options", {}).items():
        props.setProperty(key, value)
    storage_conf = jvm.org.apache.hudi.storage.hadoop.HadoopStorageConfiguration(spark._jsc.hadoopConfiguration())
    provider_class: Any = jvm
    for part in req["provider"].split("."):
        provider_class = getattr(provider_class, part)
    # Never close() it: FileSystemBasedLockProvider.close() deletes the lock file, held or not.
    provider = provider_class(jvm.org.apache.hudi.common.config.LockConfiguration(props), storage_conf)
    if req["action"] == "unlock":
        provider.unlock()
        return {"ok": True, "acquired": False}
    unit = jvm.java.util.concurrent.TimeUnit.MILLISECONDS
    return {"ok": True, "acquired": bool(provider.tryLock(int(req.get("timeout_ms", 0)), unit))}


def _scan(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    df = spark.read.format("hudi").options(**req.get("options", {})).load(req["path"])
    df.write.format("noop").mode("overwrite").save()
    return {"ok": True}


def _hfile(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    """Read an HFile cell by cell with Hudi's ``HFileReaderImpl``, or write one with ``HFileWriterImpl``."""
    import base64

    jvm = spark._jvm
    hfile = jvm.org.apache.hudi.io.hfile
    if req["action"] == "write":
        codec = jvm.org.apache.hudi.io.compress.CompressionCodec.findCodecByName(req["codec"])
        builder = hfile.HFileContext.builder().blockSize(int(req["block_size"])).compressionCodec(codec)
        context = builder.fileCreationTime(int(req["created"])).build()
        writer = hfile.HFileWriterImpl(context, jvm.java.io.FileOutputStream(req["path"]))
        for name, value in req.get("file_info", {}).items():
            writer.appendFileInfo(name, bytearray(base64.b64decode(value)))
        for name, value in req.get("meta", {}).items():
            writer.appendMetaInfo(name, bytearray(base64.b64decode(value)))
        for key, value in zip(req["keys"], req["values"], strict=True):
            writer.append(key, bytearray(base64.b64decode(value)))
        writer.close()
        return {"ok": True}
    if req["action"] == "records":
        return _hfile_records(spark, req)
    data = jvm.java.nio.file.Files.readAllBytes(jvm.java.io.File(req["path"]).toPath())
    stream = jvm.org.apache.hudi.io.ByteArraySeekableDataInputStream(
        jvm.org.apache.hudi.io.ByteBufferBackedInputStream(data)
    )
    reader = hfile.HFileReaderImpl(stream, len(data))
    keys: list[str] = []
    values: list[str] = []
    try:
        reader.initializeMetadata()
        # A KeyValue points into its data block's buffer: fetch that once per block (cell offsets
        # only grow inside a block) and slice each value at the offsets Hudi's reader gives.
        block, last = b"", -1
        found = reader.seekTo()
        while found:
            kv = reader.getKeyValue().get()
            offset = kv.getKeyOffset()
            if offset <= last:
                block = b""
            if not block:
                block = bytes(kv.getBytes())
            last = offset
            keys.append(kv.getKey().getContentInString())
            start = kv.getValueOffset()
            values.append(base64.b64encode(block[start : start + kv.getValueLength()]).decode())
            found = reader.next()
        info = {}
        for name in req.get("file_info", []):
            got = reader.getMetaInfo(hfile.UTF8StringKey(name))
            if got.isPresent():
                info[name] = base64.b64encode(bytes(got.get())).decode()
        meta = {}
        for name in req.get("meta", []):
            got = reader.getMetaBlock(name)
            if got.isPresent():
                buf = got.get()
                start = buf.arrayOffset() + buf.position()
                meta[name] = base64.b64encode(bytes(buf.array())[start : start + buf.remaining()]).decode()
        entries = reader.getNumKeyValueEntries()
    finally:
        reader.close()
    return {"ok": True, "entries": entries, "keys": keys, "values": values, "file_info": info, "meta": meta}


def _hfile_records(spark: Any, req: dict[str, Any]) -> dict[str, Any]:
    """A base file's records through Hudi's ``HoodieNativeAvroHFileReader`` (its metadata-table reader)."""
    jvm = spark._jvm
    path = jvm.org.apache.hudi.storage.StoragePath(req["path"])
    conf = jvm.org.apache.hudi.storage.hadoop.HadoopStorageConfiguration(spark._jsc.hadoopConfiguration())
    storage = jvm.org.apache.hudi.storage.HoodieStorageUtils.getStorage(path, conf)
    props = jvm.org.apache.hudi.common.config.TypedProperties()
    factory = jvm.org.apache.hudi.io.storage.HFileReaderFactory.builder().withStorage(storage).withProps(props)
    factory = factory.withPath(path).build()
    builder = jvm.org.apache.hudi.io.storage.HoodieNativeAvroHFileReader.builder().readerFactory(factory).path(path)
    reader = builder.schema(jvm.org.apache.hudi.common.util.Option.empty()).useBloomFilter(True).build()
    try:
        low, high = reader.readMinMaxRecordKeys()
        bloom = reader.readBloomFilter()
        schema = reader.getSchema()
        rows = []
        records = reader.getIndexedRecordIterator(schema, schema, jvm.java.util.HashMap())
        while records.hasNext():
            record = records.next()
            rows.append({name: str(record.get(name)) for name in req["fields"]})
        records.close()
        return {
            "ok": True, "min": low, "max": high, "total": reader.getTotalRecords(), "rows": rows,
            "bloom_type": str(bloom.getBloomFilterTypeCode().toString()),
            "bloom_contains": [bool(bloom.mightContain(key)) for key in req.get("probe", [])],
        }  # fmt: skip
    finally:
        reader.close()


def _error(exc: BaseException) -> dict[str, Any]:
    """The failure, named by its Java class when it is one, with its chain of causes (no stack)."""
    java = getattr(exc, "java_exception", None)
    if java is None:
        name, message = type(exc).__name__, str(exc)
    else:
        name = java.getClass().getName()
        causes: list[str] = []
        while java is not None and len(causes) < 6:
            causes.append(str(java.toString()))
            java = java.getCause()
        message = "\ncaused by ".join(causes)
    return {"ok": False, "error": name, "message": message[:4000], "trace": traceback.format_exc()[-8000:]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve Apache Hudi requests as JSON lines on stdin/stdout.")
    parser.add_argument("--jar", required=True)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="override a session setting")
    args = parser.parse_args(argv)
    protocol = _protocol_stream()
    try:
        spark = _session(args.jar, args.warehouse, dict(item.split("=", 1) for item in args.conf))
        version = spark.version
        hudi = spark._jvm.org.apache.hudi.HoodieVersion.get()
    except Exception as exc:
        protocol.write(json.dumps(_error(exc)) + "\n")
        return 1
    protocol.write(json.dumps({"ok": True, "ready": True, "spark": version, "hudi": str(hudi)}) + "\n")
    handlers: dict[str, Callable[[Any, dict[str, Any]], dict[str, Any]]] = {
        "write": _write, "read": _read, "filtered_read": _filtered_read, "sql": _sql, "lock": _lock, "scan": _scan,
        "hfile": _hfile,
        "ping": lambda _s, _r: {"ok": True},
    }  # fmt: skip
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        if req.get("op") == "shutdown":
            protocol.write(json.dumps({"ok": True}) + "\n")
            break
        handler = handlers.get(req.get("op", ""))
        try:
            if handler is None:
                raise ValueError(f"unknown op {req.get('op')!r}")
            response = handler(spark, req)
        except Exception as exc:
            response = _error(exc)
        protocol.write(json.dumps(response) + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
