"""Kernel side of table services: plan formats, triggers and the post-commit entry point.

The services themselves are plugins (``hudi_table_services``); compaction ships as
``hudi_services_compaction``. What lives here is what the format and the writer need without a
plugin: the ``HoodieCompactionPlan`` codec, the inline-compaction trigger and
:func:`run_inline_services`, which a writer calls after each commit.

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
from hudi_framework.services.inline import COMPACTION_SERVICE, ServiceRun, check_inline_services, run_inline_services

__all__ = [
    "COMPACTION_PLAN_VERSION",
    "COMPACTION_SERVICE",
    "CompactionOperation",
    "CompactionPlan",
    "DeltaCommitsSince",
    "ServiceRun",
    "check_inline_services",
    "compaction_due",
    "decode_compaction_plan",
    "delta_commits_since_compaction",
    "encode_compaction_plan",
    "run_inline_services",
    "slice_metrics",
]
