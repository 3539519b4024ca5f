"""Structural rules of the codebase (docs/style: one concept per module, kernel without plugins)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "hudi_framework"
SOURCES = sorted([*KERNEL.rglob("*.py"), *(ROOT / "plugins").rglob("*.py")])
PLUGIN_PACKAGES = sorted(p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").is_file())
HARD_LIMIT = 800


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_size(path: Path) -> None:
    lines = len(path.read_text().splitlines())
    assert lines <= HARD_LIMIT, f"{path.relative_to(ROOT)} has {lines} lines; split it by concept"


@pytest.mark.parametrize("path", sorted(KERNEL.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_kernel_never_imports_a_plugin(path: Path) -> None:
    if "testing" in path.parts:
        return  # contract suites may exercise shipped backends
    tree = ast.parse(path.read_text())
    imported = {
        (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not imported & set(PLUGIN_PACKAGES), f"{path.relative_to(ROOT)} imports a plugin directly"


def test_kernel_imports_without_pyspark_and_does_no_io_at_import() -> None:
    code = (
        "import sys, builtins\n"
        "opened = []\n"
        "real_open = builtins.open\n"
        "builtins.open = lambda *a, **k: (opened.append(a[0]), real_open(*a, **k))[1]\n"
        "sys.modules['pyspark'] = None\n"
        "import hudi_framework.runtime.table, hudi_framework.cli.app, hudi_framework.config.settings\n"
        "builtins.open = real_open\n"
        # Reading our own .py sources (pydantic's attribute docstrings) is not I/O on user data.
        "user = [p for p in opened if 'site-packages' not in str(p) and 'python3' not in str(p)\n"
        "        and not str(p).endswith('.py')]\n"
        "assert not user, user\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
