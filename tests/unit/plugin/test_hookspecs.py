"""Every hook spec is documented in docs/plugins.md with its arguments, and fully annotated."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from hudi_framework.plugin import hookspecs

DOC = (Path(__file__).resolve().parents[3] / "docs" / "plugins.md").read_text()
SPECS = [
    (name, fn)
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
    if name.startswith("hudi_") and fn.__module__ == hookspecs.__name__
]


def test_there_are_hooks() -> None:
    assert {n for n, _ in SPECS} >= {"hudi_storage_backends", "hudi_record_mergers", "hudi_lock_providers"}


@pytest.mark.parametrize(("name", "fn"), SPECS, ids=[n for n, _ in SPECS])
def test_hook_is_documented_with_its_signature(name: str, fn: object) -> None:
    params = ", ".join(inspect.signature(fn).parameters)  # type: ignore[arg-type]
    assert f"### `{name}({params})" in DOC


@pytest.mark.parametrize(("name", "fn"), SPECS, ids=[n for n, _ in SPECS])
def test_hook_is_annotated_and_has_a_docstring(name: str, fn: object) -> None:
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    assert sig.return_annotation is not inspect.Signature.empty
    assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values())
    assert "Since:" in (fn.__doc__ or "")  # type: ignore[attr-defined]
