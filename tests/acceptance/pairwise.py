"""A deterministic pairwise (all-pairs) covering of the acceptance factors.

The full product of operations, layouts, key generators, table versions, indexes, partition styles
and file sizing is thousands of tables; every *pair* of factor values is covered by a few dozen.
:func:`pairwise` picks, greedily and in a fixed order, the valid combination that covers the most
pairs not yet covered, until every pair that some valid combination holds is covered.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Combination = dict[str, Any]


def pairs_of(combination: Mapping[str, Any]) -> set[tuple[tuple[str, Any], tuple[str, Any]]]:
    """Every pair of (factor, value) items a combination covers."""
    items = sorted(combination.items(), key=lambda kv: kv[0])
    return {(a, b) for a, b in itertools.combinations(items, 2)}


def pairwise(factors: Mapping[str, Sequence[Any]], valid: Callable[[Combination], bool]) -> list[Combination]:
    """A small list of valid combinations covering every coverable pair of factor values.

    Args:
        factors: Factor name -> its values (order matters only for tie-breaking).
        valid: Whether a full combination is allowed.
    """
    names = list(factors)
    candidates = [dict(zip(names, values, strict=True)) for values in itertools.product(*(factors[n] for n in names))]
    candidates = [c for c in candidates if valid(c)]
    covers = [pairs_of(c) for c in candidates]
    uncovered = set().union(*covers)
    chosen: list[Combination] = []
    while uncovered:
        best = max(range(len(candidates)), key=lambda i: len(covers[i] & uncovered))
        chosen.append(candidates[best])
        uncovered -= covers[best]
    return chosen
