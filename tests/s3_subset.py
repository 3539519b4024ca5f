"""The default run's S3 subset: one S3 case per test of a test parametrised over storage places.

A test that takes a storage-place parameter (``place`` in ``tests/faults``, ``location`` elsewhere)
runs every case on local disk; on moto S3 the default run keeps the first S3 case of each test (in
collection order), since the other cases vary table type, version or operation, which local disk
covers, and each S3 case costs seconds. ``HUDI_TEST_S3=full`` runs every S3 case. Tests that are S3
only, or whose parameters are S3 behaviours (fault points, option names, error codes), are not
parametrised over a place and always run in full.
"""

from __future__ import annotations

import os
from typing import Final

import pytest

#: Environment variable that turns the S3 subset off (``full``).
FULL_S3_ENV: Final = "HUDI_TEST_S3"
#: Fixture parameters that say where a test's table lives; their value ``"s3"`` means moto S3.
PLACE_PARAMS: Final = ("place", "location")


def full_s3() -> bool:
    return os.environ.get(FULL_S3_ENV, "").strip().lower() == "full"


def _is_s3_case(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    return any(params.get(name) == "s3" for name in PLACE_PARAMS)


def redundant_s3_cases(items: list[pytest.Item]) -> list[pytest.Item]:
    """The S3 cases of each place-parametrised test after its first one, in collection order."""
    seen: set[str] = set()
    dropped = []
    for item in items:
        if not _is_s3_case(item):
            continue
        test = item.nodeid.split("[", 1)[0]
        if test in seen:
            dropped.append(item)
        seen.add(test)
    return dropped
