"""What the timeline tells commit observers: the instants they see and the metadata they get.

:class:`~hudi_framework.timeline.transitions.TimelineWriter` calls :meth:`CommitHooks.pre_commit`
just before it creates a completed file (under the table lock when the writer holds one), so a
veto stops the instant from completing; whoever completed the instant calls
:meth:`~hudi_framework.timeline.transitions.TimelineWriter.notify_completed` afterwards, outside
the lock. The plugin manager's implementation lives in :mod:`hudi_framework.plugin.commit_hooks`.

Only instants that change what a reader sees are offered. ``hudi_pre_commit`` sees those that
write data files (:data:`VETOABLE_ACTIONS`: data commits, compaction, clustering), whose veto rolls
the files back so the table reads as before; ``hudi_commit_completed`` sees those and cleans
(:data:`OBSERVED_ACTIONS`). A clean deletes its files before it completes, so a veto could not undo
it. Rollback, restore and savepoint are recovery and administration: a vetoed commit is itself
rolled back, so a rollback a plugin could veto would leave the failed write on the timeline.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, Protocol

from hudi_framework.timeline.avro_container import AVRO_MAGIC, read_container
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.metadata import CommitMetadata, commit_metadata_to_avro_record

__all__ = ["OBSERVED_ACTIONS", "VETOABLE_ACTIONS", "CommitHooks", "metadata_view"]

#: Actions (of the instant being completed, as its inflight file names it) ``hudi_pre_commit`` sees.
VETOABLE_ACTIONS: Final = frozenset(
    {
        Action.COMMIT,
        Action.DELTA_COMMIT,
        Action.REPLACE_COMMIT,
        Action.COMPACTION,
        Action.LOG_COMPACTION,
        Action.CLUSTERING,
    }
)
#: Actions ``hudi_commit_completed`` sees.
OBSERVED_ACTIONS: Final = VETOABLE_ACTIONS | {Action.CLEAN}


class CommitHooks(Protocol):
    """The commit observers of one table session (the installed plugins' commit hooks)."""

    @property
    def active(self) -> bool:
        """Whether any observer is installed (metadata is only decoded for them)."""
        ...

    def pre_commit(self, instant: str, action: str, metadata: Mapping[str, object]) -> None:
        """Let every observer inspect the instant about to complete.

        Raises:
            CommitVetoedError: An observer vetoed it (or failed: a check that cannot run does not pass).
        """
        ...

    def commit_completed(
        self, instant: str, action: str, completion_time: str, metadata: Mapping[str, object]
    ) -> list[tuple[str, Exception]]:
        """Tell every observer the instant completed; never raises.

        Returns:
            One ``(step, error)`` per observer that failed (the instant is completed regardless).
        """
        ...


def metadata_view(metadata: CommitMetadata | bytes | None) -> dict[str, object]:
    """The metadata of a completing instant as a plain record (Apache Hudi's Avro field names).

    Commit metadata gives its Avro record on both timeline layouts; encoded metadata (a clean's
    Avro container) is decoded. The result is a copy: changing it changes nothing on the timeline.
    """
    if metadata is None or metadata == b"":
        return {}
    if isinstance(metadata, CommitMetadata):
        return commit_metadata_to_avro_record(metadata)
    if metadata.startswith(AVRO_MAGIC):
        return dict(read_container(metadata).record)
    decoded = json.loads(metadata.decode("utf-8"))
    return dict(decoded) if isinstance(decoded, dict) else {}
