"""The default run's S3 subset: one S3 case per test of a test parametrised over storage places.

A test that takes a storage-place parameter (``place`` in ``tests/faults``, ``location`` elsewhere)
runs every case on local disk; on moto S3 the default run keeps one S3 case of each test, since the
other cases vary table type, version or operation, which local disk covers, and each S3 case costs
seconds. The case kept is the cheapest (see :func:`s3_cost`: copy-on-write before merge-on-read, then
the earliest in collection order) of those worth running: a test marked ``s3_cases(**params)`` runs
only the S3 cases with those parameter values, even with ``HUDI_TEST_S3=full`` (the others add
nothing on S3). A test marked ``s3_full`` runs no S3 case by default (another test covers on S3 what
it checks there). ``HUDI_TEST_S3=full`` runs every S3 case worth running. Tests that are S3
only, or whose parameters are S3 behaviours (fault points, option names, error codes), are not
parametrised over a place and always run in full.
"""

from __future__ import annotations

import os
from typing import Any, Final

import pytest

#: Environment variable that turns the S3 subset off (``full``).
FULL_S3_ENV: Final = "HUDI_TEST_S3"
#: Fixture parameters that say where a test's table lives; their value ``"s3"`` means moto S3.
PLACE_PARAMS: Final = ("place", "location")
#: Marker of a place-parametrised test whose S3 cases run only with ``HUDI_TEST_S3=full``.
S3_FULL_MARK: Final = "s3_full"
#: Marker naming the only S3 cases of a test worth running (its keyword arguments are parameter
#: values: ``@pytest.mark.s3_cases(table_type="COPY_ON_WRITE")``), the others adding nothing on S3.
S3_CASES_MARK: Final = "s3_cases"
#: Parameter values that make an S3 case dearer: a merge-on-read table reads and writes more
#: objects per commit (log files beside base files, merged reads) than a copy-on-write one.
_DEARER: Final = frozenset({"MERGE_ON_READ", "mor"})


def full_s3() -> bool:
    return os.environ.get(FULL_S3_ENV, "").strip().lower() == "full"


def _params(item: pytest.Item) -> dict[str, Any]:
    return dict(getattr(getattr(item, "callspec", None), "params", {}))


def _is_s3_case(item: pytest.Item) -> bool:
    params = _params(item)
    return any(params.get(name) == "s3" for name in PLACE_PARAMS)


def s3_cost(item: pytest.Item) -> int:
    """A rank of what an S3 case costs: how many of its parameter values make S3 cases dearer."""
    return sum(1 for value in _params(item).values() if isinstance(value, str) and value in _DEARER)


def _marker(item: pytest.Item, name: str) -> pytest.Mark | None:
    get = getattr(item, "get_closest_marker", None)
    return None if get is None else get(name)


def _worth_running(cases: list[pytest.Item]) -> list[pytest.Item]:
    """The S3 cases of one test its ``s3_cases`` marker names (all of them without the marker)."""
    mark = _marker(cases[0], S3_CASES_MARK)
    if mark is None:
        return cases
    named = [c for c in cases if all(_params(c).get(k) == v for k, v in mark.kwargs.items())]
    if not named:
        raise pytest.UsageError(f"{cases[0].nodeid.split('[', 1)[0]}: no S3 case has the parameters {mark.kwargs}")
    return named


def redundant_s3_cases(items: list[pytest.Item], full: bool = False) -> list[pytest.Item]:
    """The S3 cases a run leaves out, in collection order.

    Always the S3 cases an ``s3_cases`` marker does not name. By default also every S3 case of an
    ``s3_full`` test, and of every other test all those left but the cheapest (:func:`s3_cost`; the
    earliest of equal ranks).
    """
    by_test: dict[str, list[pytest.Item]] = {}
    dropped: list[pytest.Item] = []
    for item in items:
        if not _is_s3_case(item):
            continue
        if not full and _marker(item, S3_FULL_MARK) is not None:
            dropped.append(item)
        else:
            by_test.setdefault(item.nodeid.split("[", 1)[0], []).append(item)
    for cases in by_test.values():
        named = _worth_running(cases)
        kept = {id(c) for c in (named if full else [min(named, key=s3_cost)])}  # min: the first of equals
        dropped.extend(case for case in cases if id(case) not in kept)
    order = {id(item): n for n, item in enumerate(items)}
    return sorted(dropped, key=lambda item: order[id(item)])
