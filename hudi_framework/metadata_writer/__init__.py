"""Keeping Apache Hudi's metadata table (MDT) in step with the data table: its writer.

One builder per MDT partition (:mod:`~hudi_framework.metadata_writer.partition_builder`, registered in
:mod:`~hudi_framework.metadata_writer.builders`) turns each data instant into that partition's records;
:mod:`~hudi_framework.metadata_writer.sync` writes them as one MDT delta commit per data instant,
:mod:`~hudi_framework.metadata_writer.initialize` builds a partition from the table's files, and
:mod:`~hudi_framework.metadata_writer.compaction` compacts the MDT's file groups.
:mod:`~hudi_framework.metadata_writer.writer` holds the entry points writers call.

The format and the reader live in :mod:`hudi_framework.metadata`; this package sits above the read
planner and the table services, whose statistics and plan codecs it reuses.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
