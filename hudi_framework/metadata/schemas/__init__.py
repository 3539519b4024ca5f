"""Avro schemas of the metadata tables records (HoodieMetadataRecord), as Apache Hudi 1.x writes them."""
