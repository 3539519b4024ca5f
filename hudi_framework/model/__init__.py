"""Data model: schemas (Arrow <-> Avro), type promotion, Java text of values, the Parquet format."""
