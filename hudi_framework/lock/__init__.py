"""The table lock as the write path uses it: opening the configured provider, holding it with
retries and fencing, lease keeping for lease-based plugins, and fail-fast safety checks.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.contracts.lease import LeaseKeeper
from hudi_framework.lock.guard import HeldLock, LockPolicy, acquire, table_lock
from hudi_framework.lock.owner import new_owner_id
from hudi_framework.lock.resolve import open_table_lock
from hudi_framework.lock.safety import WriterTopology, check_lock_safety, topology_of_spark_master

__all__ = [
    "HeldLock",
    "LeaseKeeper",
    "LockPolicy",
    "WriterTopology",
    "acquire",
    "check_lock_safety",
    "new_owner_id",
    "open_table_lock",
    "table_lock",
    "topology_of_spark_master",
]
