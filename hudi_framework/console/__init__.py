"""Rich console renderings of a table, its timeline and file slices, for the CLI and job reports.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
