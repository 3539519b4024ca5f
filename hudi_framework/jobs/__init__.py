"""``hudi-fw run``: config-driven sample jobs (generate or read data, write, change, read back, verify).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.jobs.result import JobReport, ReadReport, StepReport
from hudi_framework.jobs.runner import JobObserver, run_job

__all__ = ["JobObserver", "JobReport", "ReadReport", "StepReport", "run_job"]
