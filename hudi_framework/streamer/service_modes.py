"""How a streamer run's table services run: inline after each round, or in the background.

Apache Hudi's HoodieStreamer decides compaction for the user: on a merge-on-read table a one-round
run compacts inline and a continuous run compacts asynchronously, unless ``--disable-compaction``.
Clustering with ``hoodie.clustering.async.enabled`` is executed by the continuous streamer's
background service too. :func:`service_modes` applies the same rules to the settings; where the user
set ``services.compaction.inline`` or ``schedule_inline`` explicitly, that choice stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.vocabulary import TableType

__all__ = ["ServiceModes", "service_modes"]


@dataclass(frozen=True, slots=True)
class ServiceModes:
    """The settings the rounds write with, and what the background service executes.

    Attributes:
        settings: The rounds' settings (compaction mode decided; ``write.serialize_commits`` on when
            a background service runs beside the rounds).
        async_compaction: The background service executes compaction plans.
        async_clustering: The background service executes clustering plans.
    """

    settings: HudiSettings
    async_compaction: bool
    async_clustering: bool

    @property
    def background(self) -> bool:
        """A background service runs beside the rounds."""
        return self.async_compaction or self.async_clustering


def service_modes(settings: HudiSettings, table_type: TableType) -> ServiceModes:
    """Decide the streamer's table services for a table of ``table_type``.

    Raises:
        ConfigError: ``streamer.disable_compaction`` with compaction asked for explicitly.
    """
    streamer, comp = settings.streamer, settings.services.compaction
    explicit = {"inline", "schedule_inline"} & comp.model_fields_set
    async_compaction = False
    update: dict[str, bool] = {}
    if streamer.disable_compaction:
        if comp.inline or comp.schedule_inline:
            field = "inline" if comp.inline else "schedule_inline"
            raise ConfigError(
                f"streamer.disable_compaction (--disable-compaction) contradicts services.compaction.{field} = true "
                f"(hoodie.compact.{'inline' if field == 'inline' else 'schedule.inline'})"
            )
    elif table_type is TableType.MERGE_ON_READ and not explicit:
        if streamer.continuous:
            update = {"inline": False, "schedule_inline": True}
            async_compaction = True
        else:
            update = {"inline": True, "schedule_inline": False}
    async_clustering = streamer.continuous and settings.services.clustering.async_enabled
    services = settings.services
    if update:
        services = services.model_copy(update={"compaction": comp.model_copy(update=update)})
    write = settings.write
    if async_compaction or async_clustering:
        write = write.model_copy(update={"serialize_commits": True})
    out = settings.model_copy(update={"services": services, "write": write})
    return ServiceModes(out, async_compaction, async_clustering)
