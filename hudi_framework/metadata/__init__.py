"""Apache Hudi's metadata table (MDT): record keys and schema, the reader, and its validation.

:class:`~hudi_framework.metadata.reader.MetadataTable` opens and reads the MDT of a table,
:mod:`hudi_framework.metadata.keys` encodes its record keys, :mod:`hudi_framework.metadata.validate`
says whether it is usable and compares it with storage, and :mod:`hudi_framework.metadata.listing`
gives readers their file listing from it.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
