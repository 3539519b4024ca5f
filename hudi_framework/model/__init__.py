"""Data model: schemas (Arrow <-> Avro), records and keys.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
