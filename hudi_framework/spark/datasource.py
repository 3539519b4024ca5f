"""``format("hudi")``: the Spark Python data source (reads and writes).

Reads: :mod:`hudi_framework.spark.datasource_read` (the driver plans one task per base file, or
per file slice to merge, packed into splits sized as Spark sizes file splits; executors read and
merge their files with pyarrow and yield Arrow batches cast to Spark's exact schema).

Writes: :mod:`hudi_framework.spark.datasource_write` (direct writes in executors for operations that
never read stored records, staged rows merged at commit for the others).

Structured Streaming: :mod:`hudi_framework.spark.stream_write` (``writeStream``, one commit per
micro-batch) and :mod:`hudi_framework.spark.stream_read` (``readStream``, incremental windows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
)
from pyspark.sql.types import StructType

from hudi_framework.spark.datasource_read import HudiDataSourceReader, HudiPushdownReader, ReadPartition, read_splits
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.read.splits import SplitSizing

# Spark runs schema() and reader()/partitions() each in a fresh Python process on a session's first
# read, and imports this module there: the read path is imported inside the methods that use it, so
# each planner process imports only its own part (tests/acceptance/test_spark_planner_imports.py pins the set).


def _spark_schema(schema: pa.Schema) -> StructType:
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_schema

    from hudi_framework.read.schema import spark_type

    return from_arrow_schema(pa.schema([pa.field(f.name, spark_type(f.type), True) for f in schema]))


class HudiDataSource(DataSource):
    """``spark.read.format("hudi")`` / ``df.write.format("hudi")``.

    Read splits are sized from :attr:`split_sizing`; Spark's planner processes cannot see the
    session, so :meth:`for_session` bakes the session's file-split settings into a subclass that
    travels (pickled by value) with the registration.
    """

    #: How reads pack tasks into Spark partitions (None: Spark's defaults, this machine's CPU count).
    split_sizing: ClassVar[SplitSizing | None] = None
    #: How a staged write's commit reaches the registering session: the path
    #: :func:`~hudi_framework.spark.driver_session.publish_handle` wrote (None: it merges in itself).
    driver: ClassVar[str | None] = None

    @classmethod
    def name(cls) -> str:
        return "hudi"

    @classmethod
    def for_session(cls, sizing: SplitSizing, driver: str | None = None) -> type[HudiDataSource]:
        """This data source, splitting reads by ``sizing`` and reaching the driver by ``driver`` (to
        register on the session they came from)."""
        # Defined here, not importable by name: cloudpickle then ships the class with its sizing.
        attributes = {"split_sizing": sizing, "driver": driver, "__qualname__": f"{cls.__qualname__}.for_session"}
        return type(cls.__name__, (cls,), attributes)

    #: Set by :meth:`schema`: the parsed options and, for a read without filter pushdown, its splits.
    #: Spark runs :meth:`schema` and :meth:`reader` in two fresh processes on a session's first read
    #: and hands the second this instance pickled by the first; planning where the schema was read
    #: spares the second process opening the table (and importing the read path) again, and reads
    #: the files of the instant whose schema Spark was given.
    _parsed: SourceOptions | None = None
    _planned: list[ReadPartition] | None = None

    def schema(self) -> StructType:
        from hudi_framework.read.reader import build_options, plan_read
        from hudi_framework.read.schema import read_schema

        with reported_to_spark():
            options = SourceOptions.parse(self.options, read=True)
            table = options.open_table()
            read_options = build_options(options=options.hoodie)
            schema = _spark_schema(read_schema(table, as_of=read_options.as_of))
            self._parsed = options
            # Filters reach only the reader (pushFilters): a pushdown read plans there, with them.
            if not options.filter_pushdown:
                self._planned = read_splits(plan_read(table, read_options), self.split_sizing)
            return schema

    def reader(self, schema: StructType) -> DataSourceReader:
        options, planned = self._parsed, self._planned
        if options is None:  # the schema was given (spark.read.schema(...)): schema() did not run
            with reported_to_spark():
                options = SourceOptions.parse(self.options, read=True)
        with reported_to_spark():
            options.refuse_streaming()
        reader = HudiPushdownReader if options.filter_pushdown else HudiDataSourceReader
        return reader(options, schema, self.split_sizing, planned)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        # Imported here: the planner processes Spark starts for a read need no write path.
        from hudi_framework.spark.datasource_write import build_writer

        # Bad options fail here, on the driver side, before any task runs.
        with reported_to_spark(write=True):
            options = SourceOptions.parse(self.options)
            options.refuse_streaming(batch_write=True)
            return build_writer(options, schema, overwrite, self.driver)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamArrowWriter:  # noqa: N802
        """``df.writeStream.format("hudi")``: one commit per micro-batch (:mod:`.stream_write`)."""
        from hudi_framework.spark.stream_write import HudiStreamWriter

        with reported_to_spark(write=True):
            return HudiStreamWriter.build(SourceOptions.parse(self.options), schema, overwrite)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        """``spark.readStream.format("hudi")``: new records by completion time (:mod:`.stream_read`)."""
        from hudi_framework.spark.stream_read import HudiStreamReader

        with reported_to_spark():
            return HudiStreamReader.build(self._parsed or SourceOptions.parse(self.options, read=True), schema,
                                          self.split_sizing)  # fmt: skip
