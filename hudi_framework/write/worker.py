"""What a task outside the driver process needs to rebuild a write's components, and the
per-process cache of them.

Spark tasks and the local engine's process-pool tasks (table services) never receive a
``SparkSession``, ``HudiTable``, plugin manager or storage client. They get a :class:`WorkerSpec`
(the table's base URI, its frozen :class:`TableConfig`, the write's :class:`HudiSettings` and the
:class:`StorageSpec` the driver opened the table's storage with, all picklable) and call
:func:`worker_components`, which builds a fresh plugin manager from ``settings.plugins``, opens
that same storage (endpoint, region and credentials included) and builds the key generator, merger
and index exactly as the driver does (:func:`~hudi_framework.write.session.build_write_components`).

:class:`TaskStorage` hands a task its storage: the driver's own backend when the task runs in the
driver process, the one the spec rebuilds once it was pickled to another process.

The only state is this module's cache: Spark and the process pool reuse Python workers, so a
worker keeps the components of the last few specs, keyed by the spec's fingerprint (a hash of its
pickled content), and a task of the same write (or of a later write with the same settings) does
not reload entry points or reconnect to storage. The cache holds no table data.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from hudi_framework.runtime.components import Components
from hudi_framework.storage.resolve import StorageSpec
from hudi_framework.write.session import WriteComponents, build_write_components

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import TableConfig

__all__ = ["TaskStorage", "WorkerComponents", "WorkerSpec", "worker_components"]

#: Specs whose components one Python worker keeps (oldest evicted first).
_CACHE_SIZE: Final = 4
#: fingerprint -> components; see the module docstring (the documented per-process cache).
_CACHE: Final[dict[str, WorkerComponents]] = {}


def _fingerprint(*parts: object) -> str:
    return hashlib.sha256(pickle.dumps(parts)).hexdigest()


@dataclass(frozen=True)
class WorkerSpec:
    """How a task rebuilds a write's components (picklable, shipped inside task closures and service tasks).

    Attributes:
        base_uri: The table's base URI.
        config: The table config (``hoodie.properties``) as the driver read it.
        settings: The write's settings (plugins, merger, index...); secrets masked in ``repr``.
        storage: How the driver opened the table's storage; credentials included (masked in
            ``repr``), as the task's storage backend needs them.
        fingerprint: A hash of the fields above (the cache key).
    """

    base_uri: str
    config: TableConfig
    settings: HudiSettings
    storage: StorageSpec
    fingerprint: str = field(default="", compare=False)

    @classmethod
    def of(cls, table: HudiTable, settings: HudiSettings) -> WorkerSpec:
        """The spec of a write to ``table`` with ``settings``, its fingerprint computed.

        Raises:
            ConfigError: ``settings.storage`` is configured differently from the table's storage.
        """
        storage = table.task_storage(settings.storage)
        return cls(
            table.base_uri,
            table.config,
            settings,
            storage,
            _fingerprint(table.base_uri, table.config, settings, storage),
        )


@dataclass(frozen=True)
class WorkerComponents:
    """Components of one write, rebuilt in a worker process.

    Attributes:
        storage: The backend rooted at the table base path.
        write: Key generator, merger and index.
    """

    storage: StorageBackend
    write: WriteComponents


def _build(spec: WorkerSpec) -> WorkerComponents:
    components = Components.from_settings(spec.settings)
    storage = components.storage(spec.base_uri, spec.storage)
    return WorkerComponents(storage, build_write_components(components, spec.config))


def worker_components(spec: WorkerSpec) -> WorkerComponents:
    """The components of ``spec``, from this process's cache or freshly built."""
    key = spec.fingerprint or _fingerprint(spec.base_uri, spec.config, spec.settings, spec.storage)
    found = _CACHE.get(key)
    if found is None:
        found = _build(spec)
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = found
    return found


class TaskStorage:
    """A task's storage backend: the driver's while in the driver process, rebuilt from the spec elsewhere.

    Pickling drops the driver's backend (a storage client never crosses a process boundary), so
    a task unpickled in a worker opens the table's storage from :attr:`spec`; the same task run in
    the driver process (the in-process runner) uses the driver's backend, fault injection and
    request counting included.

    Args:
        spec: How a worker rebuilds the components (None: the task never leaves the driver process).
        local: The driver's backend rooted at the table base path.
    """

    __slots__ = ("_local", "spec")

    def __init__(self, spec: WorkerSpec | None, local: StorageBackend | None = None) -> None:
        self.spec = spec
        self._local = local

    def __getstate__(self) -> WorkerSpec:
        if self.spec is None:
            raise TypeError("this task's storage is the driver's only; it cannot leave the driver process")
        return self.spec

    def __setstate__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self._local = None

    def get(self) -> StorageBackend:
        """The backend: the driver's, else this process's cached one for the spec."""
        if self._local is not None:
            return self._local
        if self.spec is None:
            raise TypeError("a task storage needs a spec or a local backend")
        return worker_components(self.spec).storage
