"""Options of the ``hudi-incr`` source: Apache Hudi's ``HoodieIncrSourceConfig`` keys."""

from __future__ import annotations

import enum

from pydantic import AliasChoices, BaseModel, ConfigDict, Field


def _keys(suffix: str, field: str) -> AliasChoices:
    return AliasChoices(
        field, f"hoodie.streamer.source.hoodieincr.{suffix}", f"hoodie.deltastreamer.source.hoodieincr.{suffix}"
    )


class MissingCheckpointStrategy(enum.StrEnum):
    """Where a stream without a checkpoint starts (Apache Hudi's ``MissingCheckpointStrategy``)."""

    #: Everything the upstream table ever committed, ``num_instants`` at a time.
    READ_UPTO_LATEST_COMMIT = "READ_UPTO_LATEST_COMMIT"
    #: Only the latest completed commit, then what follows it.
    READ_LATEST = "READ_LATEST"


class HoodieIncrOptions(BaseModel):
    """Which table to follow and how much of it each batch takes."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    #: ``hoodie.streamer.source.hoodieincr.path``: base path or URI of the upstream Hudi table.
    path: str = Field(min_length=1, validation_alias=_keys("path", "path"))
    #: ``hoodie.streamer.source.hoodieincr.num_instants``: at most this many commits per batch.
    num_instants: int = Field(default=5, ge=1, validation_alias=_keys("num_instants", "num_instants"))
    #: ``hoodie.streamer.source.hoodieincr.missing.checkpoint.strategy``: the start without a
    #: checkpoint; unset reads from the upstream table's first commit.
    missing_checkpoint_strategy: MissingCheckpointStrategy | None = Field(
        default=None, validation_alias=_keys("missing.checkpoint.strategy", "missing_checkpoint_strategy")
    )
    #: ``hoodie.streamer.source.hoodieincr.drop.all.meta.fields.from.source``: drop every ``_hoodie_*``
    #: column; by default all but ``_hoodie_partition_path`` are dropped, as Apache Hudi does.
    drop_all_meta_fields: bool = Field(
        default=False, validation_alias=_keys("drop.all.meta.fields.from.source", "drop_all_meta_fields")
    )
