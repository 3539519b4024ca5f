"""Output streams that publish only on a clean close.

A backend's ``open_output`` returns a stream whose ``close()`` makes the object visible. Used as a
context manager, pyarrow's ``NativeFile`` closes on any exit, so an exception half-way through a
parquet write would publish a truncated object. :class:`PublishingOutput` discards instead when its
``with`` block raises.
"""

from __future__ import annotations

from types import TracebackType
from typing import Protocol

import pyarrow as pa

__all__ = ["DiscardableSink", "PublishingOutput"]


class DiscardableSink(Protocol):
    """A raw write stream that publishes on ``close()`` and can be dropped instead."""

    def close(self) -> None:
        """Publish what was written."""

    def discard(self) -> None:
        """Drop what was written; nothing becomes visible, and a later ``close()`` is a no-op."""


class PublishingOutput(pa.PythonFile):  # type: ignore[misc]  # pyarrow ships no type stubs
    """A pyarrow write stream over a :class:`DiscardableSink`: a ``with`` block that raises discards."""

    def __init__(self, sink: DiscardableSink, mode: str = "w") -> None:
        # pa.PythonFile takes (handle, mode) in its C-level constructor; nothing to pass on here.
        self._sink = sink

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None:
            self._sink.discard()
        self.close()
