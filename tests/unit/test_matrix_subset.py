"""The default run's matrix subset (tests/matrix_subset.py): a covering subset of a ``matrix`` test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.matrix_subset import covering_subset, facets, uncovered_matrix_cases


def _item(nodeid: str, matrix: bool = True, **params: Any) -> Any:
    mark = pytest.mark.matrix.mark if matrix else None
    return SimpleNamespace(
        nodeid=nodeid,
        callspec=SimpleNamespace(params=params),
        get_closest_marker=lambda name: mark if name == "matrix" else None,
    )


def test_every_value_of_every_parameter_stays_covered_and_s3_cases_stay() -> None:
    items = [
        _item(f"t.py::a[{place}-{point}-{tt}-{v}]", place=place, point=point, table_type=tt, version=v)
        for place in ("local", "s3")
        for point in ("planned", "executed")
        for tt, v in (("COW", 6), ("COW", 8), ("MOR", 6), ("MOR", 9))
    ]
    dropped = {id(i) for i in uncovered_matrix_cases(items)}
    kept = [i for i in items if id(i) not in dropped]
    here = [i.callspec.params for i in kept if i.callspec.params["place"] == "local"]
    for name in ("point", "table_type", "version"):
        assert {p[name] for p in here} == {i.callspec.params[name] for i in items}, name
    assert len(here) < 8
    # The S3 cases are the S3 subset's to pick from: all stay here.
    s3 = [i for i in items if i.callspec.params["place"] == "s3"]
    assert [i for i in kept if i.callspec.params["place"] == "s3"] == s3


def test_unmarked_tests_keep_every_case() -> None:
    items = [_item(f"t.py::b[{n}]", matrix=False, n=n) for n in range(5)]
    assert uncovered_matrix_cases(items) == []


def test_cover_is_deterministic_and_never_empty() -> None:
    cases = [("x", {("a", "1")}), ("y", {("a", "1")})]
    assert covering_subset(cases) == ["x"]
    assert covering_subset([("only", set())]) == ["only"]
    assert covering_subset([]) == []


def test_dataclass_parameters_count_field_by_field() -> None:
    from dataclasses import dataclass

    @dataclass
    class Case:
        op: str
        keygen: str

    assert facets({"case": Case("upsert", "simple"), "engine": "spark"}, ("engine",)) == {
        ("case.op", "'upsert'"),
        ("case.keygen", "'simple'"),
    }
