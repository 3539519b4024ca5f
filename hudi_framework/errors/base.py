"""The root of the exception tree."""

from __future__ import annotations

__all__ = ["HudiError"]


class HudiError(Exception):
    """Root of every error raised by hudi_framework."""
