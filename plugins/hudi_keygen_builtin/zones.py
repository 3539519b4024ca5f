"""Java time-zone ids (``TimeZone.getTimeZone``) as Arrow time zones.

It also converts between instants and wall-clock times in such zones.

Java accepts region ids (``Asia/Kolkata``), custom ids (``GMT+8``, ``GMT+08:00``, ``GMT-0530``) and
the legacy three-letter ids of ``ZoneId.SHORT_IDS`` (``PST``, ``IST``...). It silently falls back to
GMT for anything else; this module raises instead, because a partition path rendered in the wrong
zone is a silent data layout bug.
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import InvalidConfigValueError

UTC = "UTC"

# java.time.ZoneId.SHORT_IDS, which java.util.TimeZone resolves the same way.
_SHORT_IDS = {
    "EST": "-05:00", "HST": "-10:00", "MST": "-07:00",
    "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}  # fmt: skip
_UTC_IDS = frozenset({"UTC", "GMT", "UT", "Z", "UCT", "GMT0", "ZULU", "ETC/UTC", "ETC/GMT", "UNIVERSAL"})
# Java custom ids: GMT followed by a sign and hours, optionally minutes (with or without a colon).
_FIXED = re.compile(r"[+-]\d{2}:\d{2}")
#: 2038-01-01T00:00:00Z: from here on Arrow's zone kernels miss daylight saving (see zone_offsets).
_ARROW_TZ_LIMIT_MS = 2_145_916_800_000
_CUSTOM_ID = re.compile(r"(?:GMT|UTC|UT)([+-])(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)


def arrow_zone(java_id: str, *, key: str = "hoodie.keygen.timebased.timezone") -> str:
    """The Arrow time zone (IANA name or ``+HH:MM``) Java resolves ``java_id`` to.

    Args:
        java_id: The configured id.
        key: The option it came from, for the error message.

    Raises:
        InvalidConfigValueError: Java does not know the id (it would silently use GMT).
    """
    text = java_id.strip()
    if text.upper() in _UTC_IDS:
        return UTC
    custom = _CUSTOM_ID.fullmatch(text)
    if custom:
        sign, hours, minutes = custom.group(1), int(custom.group(2)), int(custom.group(3) or 0)
        if hours > 23 or minutes > 59:
            raise InvalidConfigValueError(key, f"time zone offset {text!r} is out of range")
        return UTC if hours == minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"
    if text in _SHORT_IDS:
        return _SHORT_IDS[text]
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidConfigValueError(
            key, f"unknown time zone {text!r}; use a region id (Europe/Paris) or GMT+hh:mm"
        ) from None
    return text


def is_fixed(zone: str) -> bool:
    """Whether an Arrow zone from :func:`arrow_zone` is UTC or a fixed offset."""
    return zone == UTC or bool(_FIXED.fullmatch(zone))


def zone_offsets(instants: pa.Array, zone: str) -> pa.Array:
    """UTC offset in seconds of ``zone`` at each epoch-millisecond instant.

    Arrow's time-zone kernels stop applying daylight saving after 2037 (they ignore the rule that
    tzdata files state for later years); instants from 2038 on are resolved with ``zoneinfo``
    instead, once per distinct value.
    """
    if zone == UTC:
        return pc.multiply(pc.cast(instants, pa.int64()), 0)
    utc = pc.cast(pc.cast(instants, pa.timestamp("ms")), pa.timestamp("ms", tz=UTC))
    local = pc.cast(pc.local_timestamp(pc.cast(utc, pa.timestamp("ms", tz=zone))), pa.int64())
    offsets = pc.divide(pc.subtract(local, instants), 1000)
    if is_fixed(zone):
        return offsets
    late = pc.fill_null(pc.greater_equal(instants, _ARROW_TZ_LIMIT_MS), False)
    if not pc.any(late).as_py():
        return offsets
    info = ZoneInfo(zone)
    distinct = pc.unique(pc.filter(instants, late))
    exact = [_offset_seconds(info, dt.datetime.fromtimestamp(v / 1000, dt.UTC)) for v in distinct.to_pylist()]
    fixed = pc.take(pa.array(exact, pa.int64()), pc.index_in(instants, distinct))
    return pc.if_else(late, fixed, offsets)


def local_to_utc(local: pa.Array, zone: str) -> pa.Array:
    """Epoch millis of wall-clock millis in ``zone``; the earlier instant when a time repeats.

    Raises:
        ValueError: A wall-clock time does not exist in ``zone`` (skipped by a daylight saving change).
    """
    if zone == UTC:
        return local
    naive = pc.cast(local, pa.timestamp("ms"))
    try:
        zoned = pc.assume_timezone(naive, timezone=zone, ambiguous="earliest", nonexistent="raise")
    except pa.ArrowInvalid as e:
        raise ValueError(str(e)) from e
    utc = pc.cast(pc.cast(zoned, pa.timestamp("ms")), pa.int64())
    late = pc.fill_null(pc.greater_equal(local, _ARROW_TZ_LIMIT_MS), False)
    if is_fixed(zone) or not pc.any(late).as_py():
        return utc
    info = ZoneInfo(zone)
    distinct = pc.unique(pc.filter(local, late))
    exact = []
    for value in distinct.to_pylist():
        wall = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=value)
        aware = wall.replace(tzinfo=info, fold=0)  # fold=0: the earlier of two repeated times
        if aware.astimezone(dt.UTC).astimezone(info).replace(tzinfo=None) != wall:
            raise ValueError(f"{wall.isoformat()} does not exist in {zone}")
        exact.append(value - _offset_seconds(info, aware) * 1000)
    return pc.if_else(late, pc.take(pa.array(exact, pa.int64()), pc.index_in(local, distinct)), utc)


def _offset_seconds(info: ZoneInfo, moment: dt.datetime) -> int:
    """Offset of ``info`` at an aware datetime (``astimezone`` keeps ``fold`` when the zone is the same)."""
    offset = moment.astimezone(info).utcoffset()
    assert offset is not None
    return int(offset.total_seconds())
