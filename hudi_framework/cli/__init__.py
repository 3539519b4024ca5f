"""The ``hudi-fw`` command line (typer + rich)."""
