"""Rich console renderings of a table, its timeline and file slices, for the CLI and job reports."""
