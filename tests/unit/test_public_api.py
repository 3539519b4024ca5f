"""The public API (docs/api.md): docs and examples import only public modules, public names exist.

The public modules are read from the "Public modules" table of ``docs/api.md``. Tests themselves may
import internals; only what users copy (docs code blocks, README.md, examples/) is checked.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

import hudi_framework
import hudi_framework.config
import hudi_framework.log
import hudi_framework.plugin
import hudi_framework.read
import hudi_framework.spark
import hudi_framework.timeline

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "api.md"
PACKAGE = "hudi_framework"
PYTHON_FENCES = ("python", "py", "pycon")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
_TABLE_ROW = re.compile(r"^\| `(?P<module>hudi_framework(?:\.\w+)*)(?P<tree>\.\*)?` \|", re.M)
_INTERNAL_MARK = "Internal package: not a stable API"


@dataclass(frozen=True)
class PublicModules:
    """Modules public by name, and packages public together with every submodule."""

    exact: frozenset[str]
    trees: tuple[str, ...]

    @classmethod
    def from_doc(cls, text: str) -> PublicModules:
        section = text.split("## Public modules", 1)[1].split("\n## ", 1)[0]
        rows = [(m["module"], bool(m["tree"])) for m in _TABLE_ROW.finditer(section)]
        return cls(frozenset(name for name, _ in rows), tuple(name for name, tree in rows if tree))

    def __contains__(self, module: object) -> bool:
        return isinstance(module, str) and (
            module in self.exact or any(module.startswith(tree + ".") for tree in self.trees)
        )


PUBLIC = PublicModules.from_doc(API_DOC.read_text())


@dataclass(frozen=True)
class Import:
    """One import of a hudi_framework module: where, which module, which names (none for ``import m``)."""

    where: str
    module: str
    names: tuple[str, ...]


def _imports(source: str, where: str, first_line: int = 1) -> Iterator[Import]:
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        at = f"{where}:{first_line + node.lineno - 1}"
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").split(".")[0] == PACKAGE:
                yield Import(at, node.module or "", tuple(alias.name for alias in node.names))
        else:
            yield from (Import(at, alias.name, ()) for alias in node.names if alias.name.split(".")[0] == PACKAGE)


def _python_blocks(text: str) -> Iterator[tuple[int, str]]:
    """(line of the block's first code line, code) for every Python code block of a Markdown text."""
    for block in _FENCE.finditer(text):
        if block["lang"] not in PYTHON_FENCES:
            continue
        code = textwrap.dedent(block["body"])
        if block["lang"] == "pycon" or code.lstrip().startswith(">>> "):
            # Keep the prompts' code; output lines become blank so line numbers still match.
            code = "\n".join(line[4:] if line.startswith((">>> ", "... ")) else "" for line in code.split("\n"))
        yield text.count("\n", 0, block.start()) + 2, code


def markdown_imports(text: str, where: str) -> Iterator[Import]:
    for line, code in _python_blocks(text):
        try:
            yield from _imports(code, where, line)
        except SyntaxError as e:
            pytest.fail(f"{where}:{line}: the Python code block does not parse: {e}")


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


MARKDOWN = sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md", *(ROOT / "examples").rglob("*.md")])
EXAMPLE_CODE = sorted((ROOT / "examples").rglob("*.py"))


def user_imports() -> list[Import]:
    """Every hudi_framework import a user may copy: doc code blocks and the examples' code."""
    found = [imp for path in MARKDOWN for imp in markdown_imports(path.read_text(), _relative(path))]
    found += [imp for path in EXAMPLE_CODE for imp in _imports(path.read_text(), _relative(path))]
    return found


def public_module_names() -> list[str]:
    names = set(PUBLIC.exact)
    for tree in PUBLIC.trees:
        package = importlib.import_module(tree)
        names |= {info.name for info in pkgutil.walk_packages(package.__path__, prefix=tree + ".")}
    return sorted(names)


# ------------------------------------------------------------------ the scanner itself


def test_public_modules_table_is_read() -> None:
    assert {PACKAGE, "hudi_framework.spark", "hudi_framework.errors", "hudi_framework.plugin"} <= PUBLIC.exact
    assert {"hudi_framework.contracts", "hudi_framework.testing"} <= set(PUBLIC.trees)
    assert "hudi_framework.contracts.merger" in PUBLIC
    assert "hudi_framework.read.reader" not in PUBLIC
    assert "hudi_framework.spark.session" not in PUBLIC  # only the package's names are public


def test_scanner_finds_imports_in_code_blocks() -> None:
    text = (
        "# Page\n\nProse `from hudi_framework.read import x` is not code.\n\n"
        "```python\nimport pyarrow as pa\nfrom hudi_framework.read.reader import (\n    read_table,\n)\n```\n\n"
        "- item\n\n  ```python\n  import hudi_framework.runtime.table\n  ```\n\n"
        "```python\n>>> from hudi_framework import HudiTable\nHudiTable\n```\n\n"
        "```toml\nfrom hudi_framework.config import x\n```\n"
    )
    assert list(markdown_imports(text, "page.md")) == [
        Import("page.md:7", "hudi_framework.read.reader", ("read_table",)),
        Import("page.md:15", "hudi_framework.runtime.table", ()),
        Import("page.md:19", PACKAGE, ("HudiTable",)),
    ]


def test_user_imports_are_found() -> None:
    where = {imp.where.split(":")[0] for imp in user_imports()}
    assert {"README.md", "docs/quickstart.md", "docs/mergers.md", "examples/acme-merger/acme_merger/order.py"} <= where


# ------------------------------------------------------------------ docs and examples


def test_docs_and_examples_import_only_public_modules() -> None:
    internal = [f"{imp.where}: {imp.module}" for imp in user_imports() if imp.module not in PUBLIC]
    assert not internal, "imports of internal modules (see docs/api.md for the public ones):\n" + "\n".join(internal)


def _has(module: ModuleType, name: str) -> bool:
    if hasattr(module, name):
        return True
    try:  # ``from package import submodule``
        importlib.import_module(f"{module.__name__}.{name}")
    except ModuleNotFoundError:
        return False
    return True


def test_doc_imports_exist() -> None:
    missing = []
    for imp in user_imports():
        if imp.module not in PUBLIC:
            continue  # reported by test_docs_and_examples_import_only_public_modules
        module = importlib.import_module(imp.module)
        missing += [f"{imp.where}: {imp.module}.{name}" for name in imp.names if name != "*" and not _has(module, name)]
    assert not missing, "doc examples import names that do not exist:\n" + "\n".join(missing)


# ------------------------------------------------------------------ the public modules


@pytest.mark.parametrize("name", public_module_names())
def test_public_module_defines_all_and_every_name_exists(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list), f"{name} is public and must define __all__ (docs/api.md)"
    assert len(exported) == len(set(exported)), f"{name}.__all__ lists a name twice"
    missing = [n for n in exported if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what {name} does not define: {missing}"


def _typed_imports(module: ModuleType) -> dict[str, str]:
    """Name -> module of the ``if TYPE_CHECKING:`` imports of a package's ``__init__``."""
    tree = ast.parse(Path(module.__file__ or "").read_text())
    blocks = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    return {
        alias.asname or alias.name: node.module or ""
        for block in blocks
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


@pytest.mark.parametrize(
    "package",
    [
        hudi_framework,
        hudi_framework.spark,
        hudi_framework.plugin,
        hudi_framework.config,
        hudi_framework.read,
        hudi_framework.timeline,
        hudi_framework.log,
    ],
    ids=lambda m: m.__name__,
)
def test_lazy_names_match_the_typed_imports(package: ModuleType) -> None:
    lazy = dict(vars(package)["_EXPORTS"])
    # What mypy sees is what ``__getattr__`` imports.
    assert _typed_imports(package) == lazy
    assert set(lazy) <= set(package.__all__)
    eager = set(package.__all__) - set(lazy)
    assert all(name in vars(package) for name in eager), f"{package.__name__}.__all__ misses a lazy entry"
    for name, source in lazy.items():
        assert getattr(package, name) is getattr(importlib.import_module(source), name)


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        hudi_framework.no_such_name  # noqa: B018
    with pytest.raises(AttributeError, match="no_such_name"):
        hudi_framework.spark.no_such_name  # noqa: B018


def test_star_import_gives_every_public_name() -> None:
    namespace: dict[str, object] = {}
    exec("from hudi_framework import *", namespace)
    assert set(hudi_framework.__all__) <= set(namespace)


def test_importing_the_package_imports_nothing_else() -> None:
    code = (
        "import sys\n"
        "import hudi_framework\n"
        "print(sorted(m for m in sys.modules if m.startswith('hudi_framework')))\n"
        "import hudi_framework.spark\n"
        "print('pyspark' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    top, pyspark = proc.stdout.splitlines()
    assert top == "['hudi_framework']"
    assert pyspark == "False"  # the Spark session and write client import it on first use


# ------------------------------------------------------------------ internal packages


def _packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / PACKAGE).rglob("__init__.py"))


@pytest.mark.parametrize("package", _packages(), ids=lambda p: ".".join(p.relative_to(ROOT).parts))
def test_internal_packages_say_so(package: Path) -> None:
    name = ".".join(package.relative_to(ROOT).parts)
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
    if name in PUBLIC:
        assert _INTERNAL_MARK not in docstring, f"{name} is public (docs/api.md) but its docstring says internal"
    else:
        assert _INTERNAL_MARK in docstring, f"{name} is internal: its docstring must say {_INTERNAL_MARK!r}"
