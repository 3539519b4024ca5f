"""Acceptance matrix of issue 4: every write operation, read back by our reader, hudi-rs and a model."""
