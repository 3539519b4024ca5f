"""Reading Java ``.properties`` files: HoodieStreamer's ``--props`` (Apache Hudi options, one per line).

The subset of the format such files use: ``key=value``, ``key: value`` or ``key value`` lines,
``#`` and ``!`` comments, blank lines, a trailing backslash continuing a line; surrounding
whitespace is trimmed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from hudi_framework.errors import ConfigFileError

__all__ = ["read_properties_file"]

_SEPARATOR: Final = re.compile(r"\s*[=:]\s*|\s+")


def read_properties_file(path: str | Path) -> dict[str, str]:
    """The ``key -> value`` pairs of a ``.properties`` file, in file order (a later key wins).

    Raises:
        ConfigFileError: The file cannot be read.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigFileError(str(path), e.strerror or type(e).__name__) from None
    except UnicodeDecodeError:
        raise ConfigFileError(str(path), "not UTF-8 text") from None
    result: dict[str, str] = {}
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip() if pending else raw.strip()
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        pending = ""
        if not line or line[0] in "#!":
            continue
        parts = _SEPARATOR.split(line, maxsplit=1)
        result[parts[0]] = parts[1].strip() if len(parts) > 1 else ""
    return result
