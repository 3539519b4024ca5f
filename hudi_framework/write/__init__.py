"""Writing: operations, planning file groups, per-file-group tasks, markers and commits."""
