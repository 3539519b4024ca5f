"""Table services a writer runs after each commit (inline mode).

:func:`run_inline_services` is the one call the write pipeline makes once a commit completed. For
merge-on-read tables it checks the compaction trigger and then, as ``services.compaction`` says:

* ``inline``: schedules a compaction and executes it right away (Apache Hudi's
  ``hoodie.compact.inline``);
* ``schedule_inline``: only writes the plan; another job runs it (``hudi-fw compaction run``).

Services are plugins: the ``compaction`` service is looked up in the registry by name, so an
installation without it simply has no inline compaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.services.compaction_trigger import compaction_due
from hudi_framework.table.table_config import TableType
from hudi_framework.timeline.instant_time import InstantTimeGenerator, TimelineTimezone

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.plugin.registry import ComponentRegistry
    from hudi_framework.table.table import HudiTable

#: Registered name of the compaction service.
COMPACTION_SERVICE: Final = "compaction"


@dataclass(frozen=True, slots=True)
class ServiceRun:
    """One service action taken after a commit.

    Attributes:
        service: The service name (``compaction``).
        instant: The instant it scheduled.
        executed: Whether it also executed (and completed) it.
    """

    service: str
    instant: str
    executed: bool


def run_inline_services(table: HudiTable, settings: HudiSettings, registry: ComponentRegistry) -> list[ServiceRun]:
    """Run the table services configured to run inline, after a commit completed.

    Args:
        table: The table just written.
        settings: The writer's settings (``services.*``).
        registry: Installed components (the ``compaction`` service among them).

    Returns:
        What was scheduled or executed (empty when nothing was due).

    Raises:
        UnknownComponentError: Inline compaction is configured but no plugin provides it.
        TableServiceError: A service failed (a failed compaction was rolled back to requested).
    """
    runs: list[ServiceRun] = []
    comp = settings.services.compaction
    if not (comp.inline or comp.schedule_inline):
        return runs
    table.reload()
    if table.config.table_type is not TableType.MERGE_ON_READ:
        return runs
    now = InstantTimeGenerator(TimelineTimezone(table.config.timeline_timezone)).next()
    if not compaction_due(table.timeline, comp, now):
        return runs
    service = registry.build(
        ComponentKind.SERVICE, COMPACTION_SERVICE, {"settings": settings}, field_path="services.compaction"
    )
    instant = service.schedule(table)
    if instant is None:
        return runs
    if comp.inline:
        service.execute(table, instant)
    runs.append(ServiceRun(COMPACTION_SERVICE, instant, executed=comp.inline))
    return runs
