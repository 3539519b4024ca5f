"""``select_partitions``: Apache Hudi's resolution of ``hoodie.datasource.write.partitions.to.delete``."""

from __future__ import annotations

import pytest

from hudi_framework.write.partition_selection import select_partitions

PARTITIONS = ["us/sf", "us/sj", "us/ny", "eu/paris", "eu/porto", "a.b/c"]


@pytest.mark.parametrize(
    ("paths", "chosen"),
    [
        (["us/ny", "us/sf"], ["us/ny", "us/sf"]),  # in the order named
        (["us/ny", "nope", "us"], ["us/ny"]),  # only existing partitions, whole paths only
        (["us/*"], ["us/sf", "us/sj", "us/ny"]),
        (["*"], PARTITIONS),  # ``*`` crosses ``/``
        (["eu/p%2A"], ["eu/paris", "eu/porto"]),
        (["*/p%2A"], []),  # with a ``*`` present, ``%2A`` is literal
        (["a.b/*"], ["a.b/c"]),
        (["a?b/*", "a.b*", "[a]*"], ["a.b/c"]),  # regex characters are literal
        (["us/sf", "us/s*", "*/sf"], ["us/sf", "us/sj"]),  # each partition once
        ([], []),
    ],
)
def test_select_partitions(paths: list[str], chosen: list[str]) -> None:
    assert select_partitions(paths, PARTITIONS) == chosen
