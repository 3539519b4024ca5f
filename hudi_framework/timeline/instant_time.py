"""Instant times: the ``yyyyMMddHHmmssSSS`` codec and a strictly increasing generator.

Hudi instant times are wall-clock times in the table's timeline time zone (the JVM's local zone
unless ``hoodie.table.timeline.timezone=UTC``), compared as plain strings. Older tables may hold
14-digit ``yyyyMMddHHmmss`` values; Java pads them with ``999`` milliseconds when it needs a date
(``HoodieInstantTimeGenerator.fixInstantTimeCompatibility``).
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable
from typing import Final

from hudi_framework.errors import InvalidInstantTimeError
from hudi_framework.vocabulary.timezones import TimelineTimezone

#: Length of a millisecond instant time.
INSTANT_TIME_LENGTH: Final = 17
#: Length of a legacy second-precision instant time.
SECONDS_INSTANT_TIME_LENGTH: Final = 14
#: Milliseconds appended to 14-digit times by Java (``DEFAULT_MILLIS_EXT``).
LEGACY_MILLIS_SUFFIX: Final = "999"
#: Reserved instant time of table initialisation (``HoodieTimeline.INIT_INSTANT_TS``).
INIT_INSTANT_TIME: Final = "00000000000000"
#: Reserved instant time of metadata-table bootstrap.
METADATA_BOOTSTRAP_INSTANT_TIME: Final = "00000000000001"
#: Reserved instant time of full bootstrap.
FULL_BOOTSTRAP_INSTANT_TIME: Final = "00000000000002"

_INSTANT_TIME_RE: Final = re.compile(r"^\d{14}(\d{3})?$")
_ONE_MS: Final = dt.timedelta(milliseconds=1)


#: Java's ``IncrementalQueryAnalyzer.START_COMMIT_EARLIEST``: no lower bound.
EARLIEST: Final = "earliest"

_DIGITS: Final = re.compile(r"^\d+$")


def is_valid_instant_time(value: str) -> bool:
    """Whether ``value`` has 14 or 17 digits (reserved values included)."""
    return _INSTANT_TIME_RE.match(value) is not None


def format_instant_time(moment: dt.datetime) -> str:
    """Format a datetime as a 17-digit instant time, truncating to milliseconds.

    An aware datetime is formatted as given (convert it to the timeline zone first); a naive one
    is taken as already in the timeline zone.
    """
    return moment.strftime("%Y%m%d%H%M%S") + f"{moment.microsecond // 1000:03d}"


def parse_instant_time(value: str) -> dt.datetime:
    """Parse a 14- or 17-digit instant time into a naive datetime in the timeline zone.

    Raises:
        ValueError: ``value`` is not an instant time, or is a reserved value that is not a date.
    """
    if not is_valid_instant_time(value):
        raise ValueError(f"not an instant time: {value!r}")
    if len(value) == SECONDS_INSTANT_TIME_LENGTH:
        value += LEGACY_MILLIS_SUFFIX
    moment = dt.datetime.strptime(value[:14], "%Y%m%d%H%M%S")
    return moment.replace(microsecond=int(value[14:]) * 1000)


def instant_time_to_epoch_ms(value: str, timezone: TimelineTimezone = TimelineTimezone.UTC) -> int:
    """Milliseconds since the epoch of an instant time read in ``timezone``."""
    naive = parse_instant_time(value)
    # A naive datetime's astimezone() reads it as local time, which is what LOCAL means.
    aware = naive.replace(tzinfo=dt.UTC) if timezone is TimelineTimezone.UTC else naive.astimezone()
    return round(aware.timestamp() * 1000)


def epoch_ms_to_instant_time(epoch_ms: float, timezone: TimelineTimezone) -> str:
    """Format an epoch time (milliseconds) as an instant time in ``timezone``."""
    tz = dt.UTC if timezone is TimelineTimezone.UTC else None
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, tz=tz)
    return format_instant_time(moment)


def datetime_to_instant_time(moment: dt.datetime, timezone: TimelineTimezone) -> str:
    """Format an aware datetime (for example a file's modification time) in ``timezone``."""
    target = moment.astimezone(dt.UTC) if timezone is TimelineTimezone.UTC else moment.astimezone()
    return format_instant_time(target)


def successor(value: str) -> str:
    """The smallest 17-digit instant time strictly after ``value`` (string order).

    Reserved all-zero values are not dates; their successor is the zero time plus one digit, which
    still compares greater as a string.
    """
    if len(value) == SECONDS_INSTANT_TIME_LENGTH:
        # "…ss" < "…ss000": the padded form already compares greater than the 14-digit one.
        value += "000"
        if value[:8] == "00000000":
            return value
    if value[:8] == "00000000":
        return f"{int(value) + 1:0{INSTANT_TIME_LENGTH}d}"
    return format_instant_time(parse_instant_time(value) + _ONE_MS)


def resolve_instant_time(value: str | None, timezone: TimelineTimezone = TimelineTimezone.LOCAL) -> str | None:
    """Turn a user-given instant bound into the string Apache Hudi compares instant times with.

    * ``None``, ``""`` and ``earliest`` give None (no bound);
    * digit strings are returned unchanged: Java compares instant times as strings, so a 14-digit
      ``yyyyMMddHHmmss`` is the start of that second and ``000`` precedes every instant;
    * ``yyyy-MM-dd`` is midnight of that day; ``yyyy-MM-dd HH:mm:ss[.SSS]`` and ISO 8601 strings are
      read in the timeline time zone unless they carry an offset.

    Raises:
        InvalidInstantTimeError: Neither an instant time nor a date-time.
    """
    if value is None:
        return None
    text = value.strip()
    if not text or text.lower() == EARLIEST:
        return None
    if _DIGITS.match(text):
        return text
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInstantTimeError(value) from None
    if moment.tzinfo is not None:
        return datetime_to_instant_time(moment, timezone)
    return format_instant_time(moment)


def _now(timezone: TimelineTimezone) -> dt.datetime:
    return dt.datetime.now(dt.UTC if timezone is TimelineTimezone.UTC else None)


class InstantTimeGenerator:
    """Issues strictly increasing instant times.

    Within one process (one generator) times strictly increase even when several are asked for in
    the same millisecond: the next time is ``max(now, last issued + 1 ms, after + 1 ms)``. Across
    processes, pass the latest instant time seen on the timeline as ``after`` and publish the
    instant with an atomic create; the timeline writer retries with a later time on collision.

    Thread-safe. Share one generator per process and table.
    """

    def __init__(
        self,
        timezone: TimelineTimezone = TimelineTimezone.LOCAL,
        *,
        clock: Callable[[], dt.datetime] | None = None,
    ) -> None:
        """Create a generator.

        Args:
            timezone: The table's ``hoodie.table.timeline.timezone``.
            clock: Returns "now" in the timeline zone; defaults to the system clock (for tests).
        """
        self._timezone = timezone
        self._clock = clock if clock is not None else (lambda: _now(timezone))
        self._lock = threading.Lock()
        self._last: str | None = None

    @property
    def timezone(self) -> TimelineTimezone:
        """The zone times are generated in."""
        return self._timezone

    @property
    def last_issued(self) -> str | None:
        """The latest time this generator returned."""
        return self._last

    def next(self, after: str | None = None) -> str:
        """Return a new instant time, strictly greater than every earlier one and than ``after``."""
        with self._lock:
            candidate = format_instant_time(self._clock())
            for floor in (self._last, after):
                if floor is not None and candidate <= floor:
                    candidate = successor(floor)
            self._last = candidate
            return candidate
