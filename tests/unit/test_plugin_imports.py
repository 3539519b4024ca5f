"""Plugins depend on the public API only, and contracts sit low.

Every module under ``plugins/`` and ``examples/`` is parsed (never imported) and each of its imports
(top-level, inside functions, under ``TYPE_CHECKING``, and ``importlib.import_module`` calls with a
literal name) that names ``hudi_framework`` must name a public module: the top-level package, the
packages ``spark``, ``plugin``, ``errors`` and ``vocabulary`` themselves, or ``contracts`` and
``testing`` with their submodules (docs/plugins.md, "What a plugin may import"). The modules of
``hudi_framework/contracts/`` import only errors, vocabulary and other contracts, never a kernel
package, and never inside a function (a function-level import is how a cycle hides).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
PACKAGE: Final = "hudi_framework"

#: Public modules: exactly these names ...
PUBLIC_MODULES: Final = frozenset(
    {PACKAGE, f"{PACKAGE}.spark", f"{PACKAGE}.plugin", f"{PACKAGE}.errors", f"{PACKAGE}.vocabulary"}
)
#: ... and these packages with every submodule.
PUBLIC_PACKAGES: Final = (f"{PACKAGE}.contracts", f"{PACKAGE}.testing")

#: What contracts may import from the project: errors, vocabulary and other contracts.
CONTRACT_DEPENDENCIES: Final = (f"{PACKAGE}.errors", f"{PACKAGE}.vocabulary", f"{PACKAGE}.contracts")

# Pending work of other branches, removed when they merge.
PENDING_PLUGINS: Final[frozenset[str]] = frozenset()
PENDING_IMPORTS: Final[frozenset[tuple[str, str]]] = frozenset()
PENDING_CONTRACT_IMPORTS: Final[frozenset[tuple[str, str]]] = frozenset()


def is_public(module: str) -> bool:
    """Whether plugins may import ``module``."""
    return module in PUBLIC_MODULES or any(module == p or module.startswith(p + ".") for p in PUBLIC_PACKAGES)


def _is_project_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(source: str) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every project module that ``source`` imports, wherever the import is."""
    return imports_in(ast.parse(source))


def imports_in(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every project module imported anywhere in ``tree``.

    ``from hudi_framework.x import y`` imports ``hudi_framework.x.y`` when that is a module.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != PACKAGE:
                continue
            yield node.lineno, node.module
            for alias in node.names:
                if _is_project_module(f"{node.module}.{alias.name}"):
                    yield node.lineno, f"{node.module}.{alias.name}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.split(".")[0] == PACKAGE
        ):
            yield node.lineno, node.args[0].value


def _module_name(path: Path) -> str:
    """Dotted name of a plugin or example module (relative to its distribution's root)."""
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    top = parts[0]
    # plugins/<package>/...; examples/<distribution>/<package>/... or examples/<distribution>/<module>.py
    return ".".join(parts[1:] if top == "plugins" else parts[2:])


def plugin_modules() -> list[Path]:
    """Every Python module of the shipped plugins and the examples."""
    return sorted(p.relative_to(ROOT) for top in ("plugins", "examples") for p in (ROOT / top).rglob("*.py"))


def non_public_imports(path: Path) -> list[str]:
    """``module:line imports name`` for each import of ``path`` outside the public API."""
    module = _module_name(path)
    return [
        f"{module}:{line} imports {name}"
        for line, name in imported_modules((ROOT / path).read_text(encoding="utf-8"))
        if not is_public(name) and (module, name) not in PENDING_IMPORTS
    ]


def test_the_walk_sees_every_plugin_and_example() -> None:
    packages = {_module_name(p).split(".")[0] for p in plugin_modules()}
    shipped = {p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").is_file()}
    assert shipped <= packages
    assert {"acme_merger", "max_amount_merger"} <= packages


def test_plugins_and_examples_import_only_the_public_api() -> None:
    offending = [
        line
        for path in plugin_modules()
        if _module_name(path).split(".")[0] not in PENDING_PLUGINS
        for line in non_public_imports(path)
    ]
    assert not offending, "plugins and examples may import only public hudi_framework modules:\n" + "\n".join(offending)


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("from hudi_framework.index.tagging import tag_locations", ["hudi_framework.index.tagging"]),
        ("def f():\n    import hudi_framework.merge.align as a", ["hudi_framework.merge.align"]),
        ("from hudi_framework import config", ["hudi_framework", "hudi_framework.config"]),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hudi_framework.write import session",
            ["hudi_framework.write", "hudi_framework.write.session"],
        ),
        ("import importlib\nimportlib.import_module('hudi_framework.read.merged')", ["hudi_framework.read.merged"]),
        ("from hudi_framework.contracts.merging import AlignedPair", ["hudi_framework.contracts.merging"]),
        ("from .sibling import x\nimport pyarrow", []),
    ],
)
def test_every_kind_of_import_is_seen(source: str, found: list[str]) -> None:
    assert [name for _, name in imported_modules(source)] == found


@pytest.mark.parametrize(
    ("module", "public"),
    [
        ("hudi_framework", True),
        ("hudi_framework.contracts.indexing.footer", True),
        ("hudi_framework.testing.memory_storage", True),
        ("hudi_framework.plugin", True),
        ("hudi_framework.plugin.registry", False),
        ("hudi_framework.errors.storage", False),
        ("hudi_framework.contractsx", False),
        ("hudi_framework.config", False),
        ("hudi_framework.index.tagging", False),
    ],
)
def test_public_modules(module: str, public: bool) -> None:
    assert is_public(module) is public


def contract_modules() -> list[Path]:
    return sorted(p.relative_to(ROOT) for p in (ROOT / PACKAGE / "contracts").rglob("*.py"))


def test_contracts_import_only_errors_vocabulary_and_contracts() -> None:
    offending = []
    for path in contract_modules():
        module = ".".join(path.with_suffix("").parts).removesuffix(".__init__")
        for line, name in imported_modules((ROOT / path).read_text(encoding="utf-8")):
            allowed = any(name == d or name.startswith(d + ".") for d in CONTRACT_DEPENDENCIES)
            if not allowed and (module, name) not in PENDING_CONTRACT_IMPORTS:
                offending.append(f"{module}:{line} imports {name}")
    assert not offending, "contracts may import only errors, vocabulary and contracts:\n" + "\n".join(offending)


def test_contracts_import_nothing_of_the_project_inside_functions() -> None:
    offending: set[str] = set()
    for path in contract_modules():
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                offending.update(f"{path}:{line} imports {name}" for line, name in imports_in(function))
    assert not offending, "\n".join(sorted(offending))
