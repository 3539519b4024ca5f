"""Ingestion errors: sources, checkpoints and the streamer."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = ["CheckpointError", "SourceError", "StreamerError"]


class SourceError(HudiError):
    """A source cannot be listed, planned or read.

    Attributes:
        source: The source's name (``json-dfs``, ``kafka``...).
        detail: What went wrong, naming the file, split or option.
    """

    def __init__(self, source: str, detail: str) -> None:
        """Name the source and what failed."""
        super().__init__(f"source {source!r}: {detail}")
        self.source = source
        self.detail = detail


class CheckpointError(SourceError):
    """A checkpoint is not one the source can resume from (another source's, malformed, expired).

    Attributes:
        checkpoint: The checkpoint as recorded in the table's commit metadata.
    """

    def __init__(self, source: str, checkpoint: str, detail: str) -> None:
        """Name the source, the checkpoint and why it cannot be used."""
        super().__init__(source, f"cannot resume from checkpoint {checkpoint!r}: {detail}")
        self.checkpoint = checkpoint


class StreamerError(HudiError):
    """The streamer cannot run a round as configured (no source named, a table whose commits carry no
    checkpoint to resume from, a transformer the engine cannot run)."""
