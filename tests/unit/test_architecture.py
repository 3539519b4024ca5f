"""The kernel's layers hold: no import points from a lower layer to a higher one, and no import cycle.

The layer order is the numbered list in the "Layers" section of docs/architecture.md (bottom first).
Every import of a kernel module counts: module-level, function-level and ``if TYPE_CHECKING:`` ones
(a type-only import is still a dependency of the code's meaning). Importing ``a.b.c`` also imports the
packages ``a.b`` and ``a`` (their ``__init__`` runs), so those count as imported too.

Cycles are checked on the imports that run (``TYPE_CHECKING`` ones do not).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "hudi_framework"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: Upward imports that belong to the contracts work (another branch of the same change): a contract
#: may import only ``errors``, ``vocabulary`` and other contracts, and these are being moved out of
#: the way (the merge kernels contracts.merger calls, the bloom filter config and file slice
#: contracts.index names, the key check contracts.storage runs). They are the only exceptions, as
#: (importing module, imported module); delete the set when that work is merged.
CONTRACTS_WORK_IN_PROGRESS: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class Import:
    """One kernel module importing another."""

    source: str
    target: str
    path: Path
    line: int
    type_checking: bool

    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line} imports {self.target}"


def read_layers(text: str) -> list[list[str]]:
    """The packages of each layer, bottom first, from the numbered list of the "Layers" section."""
    section = re.search(r"^## Layers\s*$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, f"{ARCHITECTURE.name} has no '## Layers' section"
    layers: list[list[str]] = []
    for number, item in re.findall(r"^(\d+)\.\s+(.*)$", section.group(1), re.MULTILINE):
        assert int(number) == len(layers) + 1, f"layer {number} is out of order"
        names = re.findall(r"`([\w.]+)`", item.split(":", 1)[0])
        assert names, f"layer {number} names no package: {item!r}"
        layers.append(names)
    return layers


def kernel_modules() -> dict[str, Path]:
    """Every module of the kernel by dotted name (a package by its ``__init__``)."""
    modules: dict[str, Path] = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def package_of(module: str) -> str:
    """The kernel package a module belongs to (``hudi_framework`` for the top-level package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                inside.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    return inside


def kernel_imports(modules: dict[str, Path]) -> Iterator[Import]:
    """Every import of a kernel module by a kernel module, with the packages it implies."""

    def resolve(name: str) -> str | None:
        parts = name.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        return ".".join(parts) or None

    for source, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        type_checking = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = source.split(".") if path.name == "__init__.py" else source.split(".")[:-1]
                    base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            seen: set[str] = set()
            for name in names:
                resolved = resolve(name)
                if resolved is None:
                    continue
                parts = resolved.split(".")
                for end in range(1, len(parts) + 1):
                    target = ".".join(parts[:end])
                    # A module's own packages are imported before it; they are not its dependencies.
                    if target in modules and target not in seen and not f"{source}.".startswith(f"{target}."):
                        seen.add(target)
                        yield Import(source, target, path, node.lineno, id(node) in type_checking)


@pytest.fixture(scope="module")
def layers() -> list[list[str]]:
    return read_layers(ARCHITECTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return list(kernel_imports(kernel_modules()))


def test_every_kernel_package_is_in_exactly_one_layer(layers: list[list[str]]) -> None:
    listed = [name for layer in layers for name in layer]
    packages = {package_of(module) for module in kernel_modules()}
    assert sorted(n for n in set(listed) if listed.count(n) > 1) == [], "packages listed in several layers"
    assert sorted(packages - set(listed)) == [], "kernel packages missing from the layer list"
    assert sorted(set(listed) - packages) == [], "layer list names packages that do not exist"


def test_no_import_points_up_a_layer(layers: list[list[str]], imports: list[Import]) -> None:
    level = {name: number for number, layer in enumerate(layers, start=1) for name in layer}
    upward = [
        f"{imp.where()} (layer {level[package_of(imp.target)]} `{package_of(imp.target)}`) "
        f"from layer {level[package_of(imp.source)]} `{package_of(imp.source)}`"
        + (" under TYPE_CHECKING" if imp.type_checking else "")
        for imp in imports
        if level[package_of(imp.target)] > level[package_of(imp.source)]
        and (imp.source, imp.target) not in CONTRACTS_WORK_IN_PROGRESS
    ]
    assert upward == [], "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_exceptions_are_still_needed(imports: list[Import]) -> None:
    # An exception that no longer matches an import must go, so the set only ever shrinks.
    present = {(imp.source, imp.target) for imp in imports}
    assert sorted(CONTRACTS_WORK_IN_PROGRESS - present) == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle(imports: list[Import]) -> None:
    runtime = [
        imp for imp in imports if not imp.type_checking and (imp.source, imp.target) not in CONTRACTS_WORK_IN_PROGRESS
    ]
    graph: dict[str, set[str]] = {module: set() for module in kernel_modules()}
    for imp in runtime:
        graph[imp.source].add(imp.target)
    report = []
    for component in _cycles(graph):
        members = set(component)
        report.append(
            "cycle: "
            + ", ".join(component)
            + "".join(f"\n  {imp.where()}" for imp in runtime if imp.source in members and imp.target in members)
        )
    assert report == [], "module import cycles:\n" + "\n".join(report)


def test_the_checks_see_what_they_check() -> None:
    # The parser and walker must find real layers and real imports, or the tests above pass vacuously.
    layers = read_layers("## Layers\n\n1. `errors`: e.\n2. `a`, `b`: two packages.\n\n## Next\n3. `c`\n")
    assert layers == [["errors"], ["a", "b"]]
    found = {(imp.source, imp.target) for imp in kernel_imports(kernel_modules())}
    assert ("hudi_framework.table.table_config", "hudi_framework.vocabulary.table_types") in found
    assert ("hudi_framework.read.reader", "hudi_framework.read") not in found  # its own package
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
