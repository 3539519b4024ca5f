"""The ``hudi-fw`` command line (typer + rich).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
