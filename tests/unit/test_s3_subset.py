"""The default run's S3 subset (tests/s3_subset.py): one S3 case per place-parametrised test."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.s3_subset import FULL_S3_ENV, full_s3, redundant_s3_cases


def _item(nodeid: str, **params: Any) -> Any:
    return SimpleNamespace(nodeid=nodeid, callspec=SimpleNamespace(params=params))


def test_the_first_s3_case_of_each_test_stays_and_local_cases_all_stay() -> None:
    items = [
        _item("t.py::a[local-COW]", place="local", table_type="COW"),
        _item("t.py::a[s3-COW]", place="s3", table_type="COW"),
        _item("t.py::a[local-MOR]", place="local", table_type="MOR"),
        _item("t.py::a[s3-MOR]", place="s3", table_type="MOR"),
        _item("t.py::b[s3-x]", location="s3"),
        _item("t.py::b[s3-y]", location="s3"),
        _item("t.py::c[s3:PutObject]", point="s3"),  # not a place: an S3 behaviour, always run
        _item("t.py::c[s3:GetObject]", point="s3"),
        SimpleNamespace(nodeid="t.py::d"),
    ]
    dropped = redundant_s3_cases(items)
    assert [i.nodeid for i in dropped] == ["t.py::a[s3-MOR]", "t.py::b[s3-y]"]


def test_full_runs_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(FULL_S3_ENV, raising=False)
    assert not full_s3()
    monkeypatch.setenv(FULL_S3_ENV, "full")
    assert full_s3()
