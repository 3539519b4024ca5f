"""Test support for hudi_framework and its plugin authors.

* :class:`StorageBackendContract`: the behaviour every storage backend must show; subclass it and
  provide a ``backend`` fixture.
* :class:`RecordMergerContract`: the behaviour every record merger must show; subclass it and
  provide a ``merger`` fixture.
* :class:`LockProviderContract`: the behaviour every table lock provider must show; subclass it and
  provide an ``open_lock`` fixture.
* :class:`SourceContract`: the behaviour every ingestion source must show; subclass it and provide
  ``source``, ``context`` and ``land`` fixtures.
* :class:`MemoryStorageBackend`: an in-memory backend for fast tests.
* :func:`moto_server`: a moto S3 server on 127.0.0.1 for tests where another process talks to S3.

Importing this package needs ``pytest`` and ``hypothesis``; the moto helpers import ``moto`` only when called.
Public: this package and its submodules are the stable API (docs/api.md).
"""

from hudi_framework.testing.lock_contract import LockProviderContract
from hudi_framework.testing.memory_storage import MemoryStorageBackend, MemoryStorageProvider, MemoryStore
from hudi_framework.testing.merger_contract import RecordMergerContract
from hudi_framework.testing.moto_server import (
    DUMMY_AWS_ENV,
    moto_server,
    serialized_moto_s3,
)
from hudi_framework.testing.source_contract import SourceContract
from hudi_framework.testing.storage_contract import UNSAFE_KEYS, StorageBackendContract

__all__ = [
    "DUMMY_AWS_ENV",
    "UNSAFE_KEYS",
    "LockProviderContract",
    "MemoryStorageBackend",
    "MemoryStorageProvider",
    "MemoryStore",
    "RecordMergerContract",
    "SourceContract",
    "StorageBackendContract",
    "moto_server",
    "serialized_moto_s3",
]
