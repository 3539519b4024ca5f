"""The Avro schema of the metadata table's records (``HoodieMetadataRecord``), as Apache Hudi 1.x writes it.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
