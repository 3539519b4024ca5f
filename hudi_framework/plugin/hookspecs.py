"""Hook specifications: the contract between the kernel and every plugin.

Provider hooks (``hudi_<kind>``) are called once per plugin manager and return the components a
plugin offers; the kernel selects among them by name from configuration. Commit hooks
(``hudi_pre_commit``, ``hudi_commit_completed``) are called around each instant a writer completes
on a table opened with the manager. Hooks are always called with keyword arguments, and arguments
are only ever added, so an implementation may accept a subset.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from hudi_framework.plugin.markers import hookspec

if TYPE_CHECKING:
    from hudi_framework.contracts.index import RecordIndex
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.lock import LockProviderFactory
    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.contracts.service import TableService
    from hudi_framework.contracts.source import Source
    from hudi_framework.contracts.storage import StorageProvider
    from hudi_framework.contracts.transformer import Transformer
    from hudi_framework.plugin.spec import ComponentSpec


@hookspec
def hudi_storage_backends() -> Sequence[ComponentSpec[StorageProvider]]:
    """Provide storage providers, selectable by name in ``storage.backend`` or by URI scheme.

    Returns:
        Specs whose names are unique across installed plugins. The built component is a
        :class:`~hudi_framework.contracts.storage.StorageProvider`.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Provide record indexes (record key -> file group), selectable by name in ``index.type``.

    Returns:
        Specs whose names are unique across installed plugins.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_record_mergers() -> Sequence[ComponentSpec[RecordMerger]]:
    """Provide record mergers, selectable by name in ``merger.name`` or by strategy UUID.

    Returns:
        Specs whose names are unique across installed plugins.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Provide table lock providers, selectable by name in ``lock.provider``.

    Returns:
        Specs whose names are unique across installed plugins; ``aliases`` may hold Apache Hudi's
        class names. The built component is a
        :class:`~hudi_framework.contracts.lock.LockProviderFactory` that opens one
        :class:`~hudi_framework.contracts.lock.LockProvider` per writer and table.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Provide table services (compaction, clustering, cleaning, archival), selectable by name.

    Returns:
        Specs whose names are unique across installed plugins.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_key_generators() -> Sequence[ComponentSpec[KeyGenerator]]:
    """Provide key generators, selectable by name in ``table.key_generator``.

    Returns:
        Specs whose names are unique across installed plugins; ``aliases`` may hold Apache Hudi's
        class names and type names so persisted tables resolve.

    Since: 0.1.0
    """
    raise NotImplementedError


@hookspec
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    """Provide ingestion sources for the streamer, selectable by name in ``streamer.source``.

    Returns:
        Specs whose names are unique across installed plugins; ``aliases`` may hold Apache Hudi's
        source class names (``JsonDFSSource``, ``org.apache.hudi.utilities.sources.JsonDFSSource``) so
        HoodieStreamer's ``--source-class`` carries over. The built component is a
        :class:`~hudi_framework.contracts.source.Source`.

    Since: 0.2.0
    """
    raise NotImplementedError


@hookspec
def hudi_transformers() -> Sequence[ComponentSpec[Transformer]]:
    """Provide batch transformers for the streamer, selectable by name in ``streamer.transformers``.

    Returns:
        Specs whose names are unique across installed plugins; ``aliases`` may hold Apache Hudi's
        transformer class names (``FlatteningTransformer``,
        ``org.apache.hudi.utilities.transform.FlatteningTransformer``) so HoodieStreamer's
        ``--transformer-class`` carries over. The built component is a
        :class:`~hudi_framework.contracts.transformer.Transformer`, built from the options
        ``streamer.transformer_options`` gives under its name.

    Since: 0.2.0
    """
    raise NotImplementedError


@hookspec
def hudi_pre_commit(base_path: str, instant: str, action: str, metadata: Mapping[str, object]) -> None:
    """Inspect an instant just before it completes; raise ``CommitVetoedError`` to stop it.

    Called inside the commit, after its conflict check and while holding the table lock (under
    optimistic concurrency control), before the completed instant file is written, for every
    instant that writes data files: ``commit``, ``deltacommit``, ``replacecommit`` (data writes,
    insert_overwrite, delete_partition), ``compaction``, ``logcompaction`` and ``clustering``.
    Cleans, rollbacks, restores and savepoints are not offered (a veto could not undo a clean's
    deletions, and a vetoed commit is itself rolled back).

    A veto (``raise CommitVetoedError("my-plugin", "why")``) fails the write exactly as any failed
    write: its files and instant are rolled back and the table reads as before; a vetoed compaction
    goes back to requested. Any other exception vetoes too, naming the plugin (a check that cannot
    run does not pass). Keep it fast: other writers wait for the lock meanwhile.

    Args:
        base_path: The table's base URI.
        instant: The requested time of the instant being completed.
        action: The instant's action as its inflight file names it (``commit``, ``deltacommit``,
            ``replacecommit``, ``compaction``...).
        metadata: The commit metadata about to be written, as Apache Hudi's Avro record
            (``partitionToWriteStats``, ``extraMetadata``, ``operationType``...); read-only.

    Raises:
        CommitVetoedError: To stop the commit.

    Since: 0.1.0
    """


@hookspec
def hudi_commit_completed(
    base_path: str, instant: str, action: str, completion_time: str, metadata: Mapping[str, object]
) -> None:
    """Observe a completed instant: the place for catalog sync, metrics and notifications.

    Called after the completed instant file exists and the table lock is released, for the
    instants :func:`hudi_pre_commit` sees and for cleans. The instant is committed whatever this
    hook does: an exception is a post-commit failure (logged, issued as a ``PostCommitWarning``
    and, for a write, listed in ``WriteResult.post_commit_failures``), never a failed write, and
    the other plugins' implementations still run.

    Args:
        base_path: The table's base URI.
        instant: The requested time of the completed instant.
        action: The instant's action as its inflight file named it (``compaction`` completes as a
            ``commit`` file).
        completion_time: The completion time written to the timeline (empty on timeline layout 1
            when storage did not report the file's modification time).
        metadata: The metadata it completed with (Apache Hudi's Avro record; a clean's
            ``HoodieCleanMetadata``); read-only.

    Since: 0.1.0
    """
