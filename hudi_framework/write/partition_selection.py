"""Which of a table's partitions ``hoodie.datasource.write.partitions.to.delete`` names.

As Apache Hudi's Spark writer resolves it for ``delete_partition``: a path without a wildcard names
itself when the table has that partition (else nothing); a path with ``*`` (or ``%2A``, as Spark SQL
may url-encode it) matches every partition it spells, ``*`` standing for any characters, ``/``
included. Each partition is named once, in the order the paths name them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["select_partitions"]

_WILDCARDS = ("*", "%2A")


def _pattern(path: str) -> re.Pattern[str]:
    token = "*" if "*" in path else "%2A"
    return re.compile(".*".join(re.escape(part) for part in path.split(token)))


def select_partitions(paths: Sequence[str], partitions: Iterable[str]) -> list[str]:
    """The partitions among ``partitions`` that ``paths`` name (see the module docstring)."""
    existing = list(partitions)
    known = set(existing)
    exact = [p for p in paths if not any(w in p for w in _WILDCARDS)]
    chosen = [p for p in exact if p in known]
    for path in paths:
        if path not in exact:
            pattern = _pattern(path)
            chosen += [p for p in existing if pattern.fullmatch(p)]
    return list(dict.fromkeys(chosen))
