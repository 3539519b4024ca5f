"""Lazy re-exports (PEP 562 module ``__getattr__``) for the kernel's packages and plugin packages.

A plugin package's ``__init__`` is what its entry point loads, so it runs in every process that
builds a plugin manager. Re-exporting the implementation from there would import it (and boto3,
for some) even where the component is never used; a lazy export keeps ``from plugin import Name``
working while the import happens on first access. The kernel's own packages (``config``,
``timeline``, ``read``, the top-level package) export lazily for the same reason: Spark's planner
processes import them fresh and pay only for what they use. (The top-level package keeps its own
``__getattr__``: importing it imports nothing else.)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``exports[name]`` (a module path) on first access.

    Args:
        package: The package's ``__name__`` (for error messages).
        exports: Public name -> the module defining it.
    """

    def attribute(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            # AttributeError (not ImportError) lets ``from package import submodule`` fall back to
            # importing the submodule.
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return attribute
