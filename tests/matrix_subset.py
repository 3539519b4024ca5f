"""The default run's matrix subset: a test marked ``matrix`` runs a covering subset of its cases.

A long parameter matrix (fault points x table types x versions, documented values, ...) costs
seconds per case, and most of its value is in each parameter value being exercised at least once.
By default such a test keeps the cases a greedy set cover picks: every value of every parameter
(the storage place apart, see below) appears in a kept case. ``HUDI_TEST_SLOW=1`` (or a ``-m``
naming ``slow``) runs every case, as it runs the ``slow`` tests.

The cover is taken per storage place (``place`` / ``location``) apart from S3: a test's S3 cases are
left to the S3 subset (:mod:`tests.s3_subset`), which keeps one of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Final

import pytest

from tests.s3_subset import PLACE_PARAMS

#: The marker of a test whose cases the default run covers rather than runs in full.
MATRIX_MARK: Final = "matrix"


def facets(params: dict[str, Any], ignored: Iterable[str] = ()) -> set[tuple[str, str]]:
    """(name, value) pairs a case exercises, with dataclass parameters split into their fields."""
    skip = set(ignored)
    out: set[tuple[str, str]] = set()
    for name, value in params.items():
        if name in skip:
            continue
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.update((f"{name}.{k}", repr(v)) for k, v in vars(value).items())
        else:
            out.add((name, repr(value)))
    return out


def covering_subset(cases: Iterable[tuple[Any, set[tuple[str, str]]]]) -> list[Any]:
    """Greedy set cover: pick cases until every facet of any case is in a picked one (at least one case).

    Deterministic: ties go to the earliest case in collection order.
    """
    remaining = list(cases)
    if not remaining:
        return []
    wanted = set().union(*(f for _, f in remaining))
    picked = []
    while wanted or not picked:
        best = max(remaining, key=lambda c: len(c[1] & wanted))
        picked.append(best[0])
        wanted -= best[1]
        remaining.remove(best)
    return picked


def _params(item: pytest.Item) -> dict[str, Any]:
    return dict(getattr(getattr(item, "callspec", None), "params", {}))


def uncovered_matrix_cases(items: list[pytest.Item]) -> list[pytest.Item]:
    """The cases of ``matrix``-marked tests that the per-place cover of each test leaves out (S3 cases
    aside)."""
    groups: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        if item.get_closest_marker(MATRIX_MARK) is None:
            continue
        params = _params(item)
        place = next((str(params[p]) for p in PLACE_PARAMS if p in params), "")
        if place == "s3":
            continue  # the S3 subset picks a test's S3 case (tests/s3_subset.py)
        groups.setdefault((item.nodeid.split("[", 1)[0], place), []).append(item)
    keep: set[int] = set()
    for group in groups.values():
        cover = covering_subset((item, facets(_params(item), PLACE_PARAMS)) for item in group)
        keep.update(id(item) for item in cover)
    return [item for group in groups.values() for item in group if id(item) not in keep]
