"""Lazy re-exports for plugin packages: :func:`~hudi_framework.contracts.lazy_exports.lazy_exports`
under the name plugins import it by (it lives in ``contracts`` so that lower layers use it too)."""

from __future__ import annotations

from hudi_framework.contracts.lazy_exports import lazy_exports

__all__ = ["lazy_exports"]
