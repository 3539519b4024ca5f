"""Every hook spec is real: documented with its exact signature, called by the kernel, exercised by a test.

A spec added to ``hookspecs.py`` without all three fails here: a hook that is documented but never
called is a promise the kernel does not keep.
"""

from __future__ import annotations

import ast
import inspect
from functools import cache
from pathlib import Path

import pytest

from hudi_framework.plugin import ComponentKind, hookspecs
from hudi_framework.plugin.markers import PROJECT

ROOT = Path(__file__).resolve().parents[3]
KERNEL = ROOT / "hudi_framework"
TESTS = ROOT / "tests"
DOC = (ROOT / "docs" / "plugins.md").read_text(encoding="utf-8")
SPECS = sorted(
    name
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
    if fn.__module__ == hookspecs.__name__ and hasattr(fn, f"{PROJECT}_spec")
)


def _is_hook_relay(node: ast.expr) -> bool:
    """``<something>.hook``: pluggy's relay of hook callers on a plugin manager."""
    return isinstance(node, ast.Attribute) and node.attr == "hook"


@cache
def _called_hooks() -> frozenset[str]:
    """Hook names the kernel calls: ``pm.hook.<name>``, or every provider hook of ``ComponentKind``
    when the registry calls them as ``getattr(pm.hook, kind.hook)``."""
    called: set[str] = set()
    by_kind = False
    for path in KERNEL.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and _is_hook_relay(node.value):
                called.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and node.args
                and _is_hook_relay(node.args[0])
            ):
                by_kind = True
    if by_kind:
        called |= {kind.hook for kind in ComponentKind.all()}
    return frozenset(called)


@cache
def _test_sources() -> str:
    here = Path(__file__).resolve()
    return "\n".join(p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.resolve() != here)


def test_the_specs_are_found() -> None:
    assert {"hudi_storage_backends", "hudi_pre_commit", "hudi_commit_completed"} <= set(SPECS)


@pytest.mark.parametrize("name", SPECS)
def test_spec_is_documented_with_its_exact_signature(name: str) -> None:
    signature = inspect.signature(getattr(hookspecs, name))
    params = ", ".join(signature.parameters)
    returns = signature.return_annotation  # a string: hookspecs uses postponed annotations
    assert f"### `{name}({params}) -> {returns}`" in DOC


@pytest.mark.parametrize("name", SPECS)
def test_spec_is_called_by_the_kernel(name: str) -> None:
    assert name in _called_hooks(), f"{name} is a hook spec nothing in hudi_framework/ calls"


@pytest.mark.parametrize("name", SPECS)
def test_spec_is_exercised_by_a_test(name: str) -> None:
    assert name in _test_sources(), f"no test implements or calls {name}"


def test_a_spec_nobody_calls_would_fail() -> None:
    """The check above can fail: a name the kernel never calls is not among the called hooks."""
    assert "hudi_never_called" not in _called_hooks()
    assert {"hudi_pre_commit", "hudi_commit_completed", "hudi_indexes"} <= _called_hooks()
