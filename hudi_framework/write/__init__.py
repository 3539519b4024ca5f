"""Writing: operations, planning file groups, per-file-group tasks, markers and commits.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
