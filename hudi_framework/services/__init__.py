"""Kernel side of table services: plan and metadata formats, and the triggers.

The services themselves are plugins (``hudi_table_services``, contract
:mod:`hudi_framework.contracts.service`); compaction ships as ``hudi_services_compaction``,
cleaning as ``hudi_services_cleaning``. What lives here is what the format needs without a plugin:
the ``HoodieCompactionPlan`` and cleaner codecs and the compaction and clean triggers. The
machinery the services drive, and the post-commit entry point a writer calls, are in the write
layer (:mod:`hudi_framework.write.service_host`, :mod:`hudi_framework.write.table_services`).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.services.compaction_plan import (
    COMPACTION_PLAN_VERSION,
    CompactionOperation,
    CompactionPlan,
    decode_compaction_plan,
    encode_compaction_plan,
    slice_metrics,
)
from hudi_framework.services.compaction_trigger import DeltaCommitsSince, compaction_due, delta_commits_since_compaction

__all__ = [
    "COMPACTION_PLAN_VERSION",
    "CompactionOperation",
    "CompactionPlan",
    "DeltaCommitsSince",
    "compaction_due",
    "decode_compaction_plan",
    "delta_commits_since_compaction",
    "encode_compaction_plan",
    "slice_metrics",
]
