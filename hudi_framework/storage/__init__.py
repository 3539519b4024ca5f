"""Engine-neutral storage plumbing: choosing and opening the backend for a base URI.

Key validation, safe joins, publishing output streams and data-file reads are contracts every
backend shares (:mod:`hudi_framework.contracts.storage_paths`, :mod:`~hudi_framework.contracts.storage_output`,
:mod:`~hudi_framework.contracts.data_files`).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
