"""Every step of every system, by key (``system:name``): the comparison's and the scaling section's."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType

from bench.step import Requirement, Step

#: Modules under ``bench.systems``, in report order; a system whose package is missing is skipped.
SYSTEMS = ("ours", "pyarrow_floor", "delta", "iceberg", "hudi_rs", "spark", "apache_hudi")
#: The modules with a ``SCALING_STEPS`` list (the scaling section's steps, on its own inputs).
SCALING_SYSTEMS = ("ours", "pyarrow_floor")
#: Top-level packages of this project: their import errors are never "a baseline not installed".
_OWN_PACKAGES = frozenset({"bench", "hudi_framework", "pyspark_hudi"})


def _system(name: str, missing: list[str]) -> ModuleType | None:
    """The module ``bench.systems.<name>``, or None (noted in ``missing``) when its baseline package is
    not installed; a module of our own that fails to import is an error, not a missing system."""
    try:
        return importlib.import_module(f"bench.systems.{name}")
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] in _OWN_PACKAGES:
            raise
        missing.append(f"{name} ({e.name} not installed)")
        return None


def all_steps() -> tuple[dict[str, Step], list[str]]:
    """(steps of the comparison by key, systems skipped because their package is not installed)."""
    steps: dict[str, Step] = {}
    missing: list[str] = []
    for name in SYSTEMS:
        module = _system(name, missing)
        if module is not None:
            steps.update({s.key: s for s in module.STEPS})
    return steps, missing


def runnable(steps: Mapping[str, Step]) -> tuple[dict[str, Step], list[str]]:
    """(the steps whose requirements hold here, the reasons of those skipped, one per requirement).

    Each requirement is checked once (Apache Hudi's provisions its bundle, which takes a while the
    first time), and only for the steps selected.
    """
    reasons: dict[Requirement, str | None] = {}
    kept: dict[str, Step] = {}
    for key, step in steps.items():
        if step.requires is not None and step.requires not in reasons:
            reasons[step.requires] = step.requires()
        if step.requires is None or reasons[step.requires] is None:
            kept[key] = step
    return kept, [reason for reason in reasons.values() if reason is not None]


def scaling_steps() -> dict[str, Step]:
    """The scaling section's steps by key (keys distinct from the comparison's)."""
    steps: dict[str, Step] = {}
    for name in SCALING_SYSTEMS:
        module = importlib.import_module(f"bench.systems.{name}")
        steps.update({s.key: s for s in module.SCALING_STEPS})
    return steps


def find_step(key: str) -> Step:
    """The step ``key``, importing only the system modules up to the one defining it (a worker's
    memory and start-up then carry no other system's imports, pyspark's included).

    Raises:
        KeyError: No installed system has the step (the message names the systems not installed).
    """
    missing: list[str] = []
    for name in SYSTEMS:
        module = _system(name, missing)
        if module is None:
            continue
        steps: list[Step] = [*module.STEPS, *getattr(module, "SCALING_STEPS", ())]
        found = next((s for s in steps if s.key == key), None)
        if found is not None:
            return found
    hint = f"; not installed: {', '.join(missing)} (pip install -e '.[bench]')" if missing else ""
    raise KeyError(f"no benchmark step {key!r}{hint}")
