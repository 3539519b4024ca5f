"""Data model: schemas (Arrow <-> Avro), records and keys."""
