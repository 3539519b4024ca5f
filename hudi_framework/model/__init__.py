"""Data model: schemas (Arrow <-> Avro), type promotion, Java text of values, the Parquet format.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
