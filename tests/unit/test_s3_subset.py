"""The default run's S3 subset (tests/s3_subset.py): one S3 case per place-parametrised test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.s3_subset import FULL_S3_ENV, full_s3, redundant_s3_cases


def _item(nodeid: str, *marks: Any, **params: Any) -> Any:
    by_name = {m.name: m for m in marks}
    return SimpleNamespace(
        nodeid=nodeid, callspec=SimpleNamespace(params=params), get_closest_marker=lambda name: by_name.get(name)
    )


def _dropped(items: list[Any], full: bool = False) -> list[str]:
    return [i.nodeid for i in redundant_s3_cases(items, full=full)]


def test_the_cheapest_s3_case_of_each_test_stays_and_local_cases_all_stay() -> None:
    items = [
        _item("t.py::a[local-MOR]", place="local", table_type="MERGE_ON_READ"),
        _item("t.py::a[s3-MOR]", place="s3", table_type="MERGE_ON_READ"),
        _item("t.py::a[local-COW]", place="local", table_type="COPY_ON_WRITE"),
        _item("t.py::a[s3-COW-9]", place="s3", table_type="COPY_ON_WRITE", version=9),
        _item("t.py::a[s3-COW-6]", place="s3", table_type="COPY_ON_WRITE", version=6),
        _item("t.py::b[s3-x]", location="s3"),
        _item("t.py::b[s3-y]", location="s3"),
        _item("t.py::c[s3:PutObject]", point="s3"),  # not a place: an S3 behaviour, always run
        _item("t.py::c[s3:GetObject]", point="s3"),
        SimpleNamespace(nodeid="t.py::d"),
    ]
    # Merge-on-read is dearer: the first copy-on-write case stays; of equal cases the first.
    assert _dropped(items) == ["t.py::a[s3-MOR]", "t.py::a[s3-COW-6]", "t.py::b[s3-y]"]
    assert _dropped(items, full=True) == []


def test_s3_cases_names_the_only_cases_worth_running_on_s3() -> None:
    garbage = pytest.mark.s3_cases(how="garbage").mark
    items = [
        _item("t.py::a[local-truncated]", garbage, place="local", how="truncated"),
        _item("t.py::a[s3-truncated]", garbage, place="s3", how="truncated"),
        _item("t.py::a[s3-garbage-MOR]", garbage, place="s3", how="garbage", table_type="MERGE_ON_READ"),
        _item("t.py::a[s3-garbage-COW]", garbage, place="s3", how="garbage", table_type="COPY_ON_WRITE"),
    ]
    assert _dropped(items) == ["t.py::a[s3-truncated]", "t.py::a[s3-garbage-MOR]"]
    assert _dropped(items, full=True) == ["t.py::a[s3-truncated]"]


def test_s3_cases_naming_no_case_is_a_usage_error() -> None:
    typo = pytest.mark.s3_cases(how="garbag").mark
    with pytest.raises(pytest.UsageError, match="garbag"):
        redundant_s3_cases([_item("t.py::a[s3-garbage]", typo, place="s3", how="garbage")])


def test_s3_full_tests_run_on_s3_only_with_full() -> None:
    mark = pytest.mark.s3_full.mark
    items = [_item("t.py::a[local]", mark, place="local"), _item("t.py::a[s3]", mark, place="s3")]
    assert _dropped(items) == ["t.py::a[s3]"]
    assert _dropped(items, full=True) == []


def test_full_runs_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FULL_S3_ENV, raising=False)
    assert not full_s3()
    monkeypatch.setenv(FULL_S3_ENV, "full")
    assert full_s3()
