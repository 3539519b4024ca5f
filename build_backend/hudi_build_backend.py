"""The project's PEP 517 build backend: setuptools, plus one file in editable wheels.

PySpark registers Python data sources by scanning the top-level modules named ``pyspark_*`` with
``pkgutil.iter_modules``, which sees only modules that are files on ``sys.path``. setuptools serves
the packages of an editable install of this layout (packages under ``.`` and ``plugins/``) through an
import hook, invisible to that scan, so ``format("hudi")`` would resolve only in sessions whose
working directory is the checkout. The editable wheel therefore also installs ``pyspark_hudi.py``
into site-packages, holding exactly what ``pyspark_hudi/__init__.py`` holds. Regular wheels and
sdists are setuptools' own.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the hooks this backend does not change
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

_ENTRY_MODULE = "pyspark_hudi"
_PROJECT = Path(__file__).resolve().parents[1]


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, str | list[str]] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' editable wheel, plus a ``pyspark_hudi.py`` Spark's data source scan can see."""
    name: str = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    source = (_PROJECT / _ENTRY_MODULE / "__init__.py").read_bytes()
    _add_to_wheel(Path(wheel_directory) / name, f"{_ENTRY_MODULE}.py", source)
    return name


def _add_to_wheel(wheel: Path, arcname: str, data: bytes) -> None:
    """Rewrite ``wheel`` with one more file, listed in its RECORD (installers check it)."""
    with zipfile.ZipFile(wheel) as old:
        entries = [(info, old.read(info)) for info in old.infolist()]
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    row = f"{arcname},sha256={digest},{len(data)}\n".encode()
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as new:
        new.writestr(arcname, data)
        for info, content in entries:
            if info.filename.endswith(".dist-info/RECORD"):
                content = row + content
            new.writestr(info, content)
