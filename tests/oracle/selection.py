"""Which oracle cases run: the default subset, or the full matrix with ``HUDI_ORACLE_FULL=1``."""

from __future__ import annotations

import os

FULL_ENV = "HUDI_ORACLE_FULL"


def full_matrix() -> bool:
    """Whether the heavier cases (``oracle_full``) and the extra reads run."""
    return os.environ.get(FULL_ENV) == "1"
