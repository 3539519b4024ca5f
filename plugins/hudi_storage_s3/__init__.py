"""Storage plugin: s3 (work in progress)."""
