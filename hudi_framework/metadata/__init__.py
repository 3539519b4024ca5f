"""Apache Hudi's metadata table (MDT): record keys and schema, the reader, and its validation.

Public entry points: :class:`~hudi_framework.metadata.reader.MetadataTable` (open and read the MDT
of a table), :mod:`hudi_framework.metadata.keys` (key encodings) and
:mod:`hudi_framework.metadata.validate` (is the MDT usable, does it match storage).
"""
