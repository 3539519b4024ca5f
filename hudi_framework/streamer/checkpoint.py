"""Where a streamer resumes: the checkpoint in the table's commit metadata, and a user's override.

Apache Hudi keeps the streamer's checkpoint in the ``extraMetadata`` of the commit that wrote the
batch, so the checkpoint and the data commit together: after a crash at any point the table's last
completed commit names exactly the batches it holds. Tables of version 8 and later use the v2 keys
(``streamer.checkpoint.key.v2``), version 6 the v1 keys (``deltastreamer.checkpoint.key``); both are
read, v2 first, as Apache Hudi's ``CheckpointUtils`` reads them.

A user's override (HoodieStreamer's ``--checkpoint``) is recorded as the *reset key* of every commit
written with it. Apache Hudi's rule, which this module follows: the override wins while the last
checkpointed commit's reset key differs from it; once a commit records it, the table's checkpoint
wins again, so a script that keeps passing the same ``--checkpoint`` resets only once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from hudi_framework.errors import StreamerError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Instant
from hudi_framework.vocabulary import TableVersion

__all__ = [
    "CHECKPOINT_KEY_V1",
    "CHECKPOINT_KEY_V2",
    "RESET_KEY_V1",
    "RESET_KEY_V2",
    "Resume",
    "checkpoint_metadata",
    "latest_checkpoint",
    "resolve_resume",
]

CHECKPOINT_KEY_V1: Final = "deltastreamer.checkpoint.key"
RESET_KEY_V1: Final = "deltastreamer.checkpoint.reset_key"
CHECKPOINT_KEY_V2: Final = "streamer.checkpoint.key.v2"
RESET_KEY_V2: Final = "streamer.checkpoint.reset_key.v2"


@dataclass(frozen=True, slots=True)
class Recorded:
    """The checkpoint entries of the latest commit that has any.

    Attributes:
        instant: That commit.
        checkpoint: Its checkpoint key's value ('' or None when only a reset key was recorded).
        reset: Its reset key's value, if any.
    """

    instant: Instant
    checkpoint: str | None
    reset: str | None


@dataclass(frozen=True, slots=True)
class Resume:
    """Where the next round starts.

    Attributes:
        checkpoint: The checkpoint handed to ``Source.plan`` (None: from the source's beginning).
        from_override: The checkpoint is the user's override, not the table's.
        recorded: The table's latest checkpointed commit, if any.
    """

    checkpoint: str | None
    from_override: bool
    recorded: Recorded | None


def _entries(extra: dict[str, str]) -> tuple[str | None, str | None] | None:
    for key, reset in ((CHECKPOINT_KEY_V2, RESET_KEY_V2), (CHECKPOINT_KEY_V1, RESET_KEY_V1)):
        if extra.get(key) or extra.get(reset):
            return extra.get(key) or None, extra.get(reset) or None
    return None


def latest_checkpoint(table: HudiTable) -> Recorded | None:
    """The checkpoint entries of the table's latest completed commit that carries any (None: none does).

    Commits of table services (compaction, clustering) carry none and are passed over.
    """
    timeline = table.timeline
    for instant in reversed(timeline.commits_timeline()):
        found = _entries(dict(timeline.read_commit_metadata(instant).extra_metadata or {}))
        if found is not None:
            return Recorded(instant, *found)
    return None


def resolve_resume(table: HudiTable | None, override: str | None) -> Resume:
    """The checkpoint the next round resumes from.

    Args:
        table: The table (None: it does not exist yet).
        override: The user's ``--checkpoint``, if any.

    Raises:
        StreamerError: The latest checkpointed commit recorded a reset key but no checkpoint and no
            override applies (Apache Hudi refuses to guess too).
    """
    recorded = latest_checkpoint(table) if table is not None else None
    if recorded is None:
        return Resume(override, override is not None, None)
    if override is not None and override != recorded.reset:
        return Resume(override, True, recorded)
    if recorded.checkpoint:
        return Resume(recorded.checkpoint, False, recorded)
    raise StreamerError(
        f"commit {recorded.instant.requested_time} of {table.base_uri if table else ''} records no checkpoint "
        "to resume from: pass --checkpoint (streamer.checkpoint)"
    )


def checkpoint_metadata(checkpoint: str | None, override: str | None, table_version: int) -> dict[str, str]:
    """The ``extraMetadata`` entries a round's commit carries: the checkpoint it reaches and the override.

    Args:
        checkpoint: The checkpoint reached once the batch is written.
        override: The user's ``--checkpoint`` in effect for this run (recorded as the reset key).
        table_version: ``hoodie.table.version``: v2 keys from version 8 on, v1 keys before.
    """
    key, reset = (
        (CHECKPOINT_KEY_V2, RESET_KEY_V2)
        if table_version >= TableVersion.EIGHT
        else (
            CHECKPOINT_KEY_V1,
            RESET_KEY_V1,
        )
    )
    entries: dict[str, str] = {}
    if checkpoint is not None:
        entries[key] = checkpoint
    if override is not None:
        entries[reset] = override
    return entries
