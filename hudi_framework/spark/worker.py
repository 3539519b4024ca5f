"""What a Spark task needs to rebuild a write's components: :mod:`hudi_framework.write.worker`.

The spec and its per-process cache serve every engine that runs tasks outside the driver process
(Spark executors, the local engine's process pool), so they live in the write layer; Spark's
stages import them from here.
"""

from __future__ import annotations

from hudi_framework.write.worker import WorkerComponents, WorkerSpec, worker_components

__all__ = ["WorkerComponents", "WorkerSpec", "worker_components"]
