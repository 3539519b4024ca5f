"""The time zone of a table's instant times (``hoodie.table.timeline.timezone``)."""

from __future__ import annotations

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = ["TimelineTimezone"]


class TimelineTimezone(HudiEnum):
    """Time zone of instant times (``hoodie.table.timeline.timezone``): the JVM's local zone or UTC."""

    LOCAL = "LOCAL"
    UTC = "UTC"
