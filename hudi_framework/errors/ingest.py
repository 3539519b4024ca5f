"""Ingestion errors: sources, checkpoints and the streamer."""

from __future__ import annotations

from hudi_framework.errors.base import HudiError

__all__ = ["CheckpointError", "SourceError", "StreamerError", "TransformerEngineError", "TransformerError"]


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


class TransformerError(StreamerError):
    """A transformer cannot transform a batch (a column it needs is missing, it returned no table).

    Attributes:
        transformer: The transformer's name as configured (``flatten``, ``pkg.mod:function``).
        detail: What went wrong.
    """

    def __init__(self, transformer: str, detail: str) -> None:
        """Name the transformer and what failed."""
        super().__init__(f"transformer {transformer!r}: {detail}")
        self.transformer = transformer
        self.detail = detail


class TransformerEngineError(TransformerError, NotImplementedError):
    """A transformer does not run on the job's engine (``write.engine``).

    Attributes:
        engine: ``local`` or ``spark``.
    """

    def __init__(self, transformer: str, engine: str) -> None:
        """Name the transformer and the engine it cannot run on."""
        other = "spark" if engine == "local" else "local"
        super().__init__(transformer, f'does not run on the {engine} engine: set write.engine = "{other}"')
        self.engine = engine
