"""Joda-Time ``DateTimeFormat`` patterns: tokens, and vectorised printing of instants.

Apache Hudi's timestamp key generator formats partition values with Joda-Time (not
``java.time``), so this module follows ``org.joda.time.format.DateTimeFormat``: a run of one letter
is a field (``yyyy``, ``MM``), text in single quotes is literal (``''`` is a quote), and any other
character is literal. Each field is computed for all rows with Arrow kernels; month and day names are
English, as on a JVM with an English default locale.

Supported letters: ``y Y x C G M d D H h K k m s S a E e w Z``. Time zone names (``z``) are not:
their text depends on the JDK's locale data.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import InvalidConfigValueError, InvalidPartitionValueError
from hudi_keygen_builtin.zones import zone_offsets

#: Every letter Joda accepts in a pattern.
JODA_LETTERS = frozenset("GCYxwyeEDMdaKhHkmsSzZ")
#: Letters Joda treats as numbers (``DateTimeFormat.isNumericToken``; ``M`` only with one or two letters).
_NUMERIC_LETTERS = frozenset("cCxyYdhHmsSeDFwWkK")
_UNPRINTABLE = {"z": "time zone names (z) are not supported; use Z (+0000), ZZ (+00:00) or ZZZ (zone id)"}

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")  # fmt: skip
# 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in epoch millis.
_MIN_MILLIS = -62_135_596_800_000
_MAX_MILLIS = 253_402_300_799_999
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True, slots=True)
class Token:
    """One pattern element: a field (``letter`` repeated ``count`` times) or literal ``text``."""

    letter: str
    count: int
    text: str = ""

    @property
    def is_literal(self) -> bool:
        """Whether this is literal text."""
        return not self.letter

    @property
    def is_numeric(self) -> bool:
        """Joda's ``isNumericToken``: adjacent numeric fields make years parse with a fixed width."""
        return self.letter in _NUMERIC_LETTERS or (self.letter == "M" and self.count <= 2)


def tokenize(pattern: str, *, key: str) -> tuple[Token, ...]:
    """Split a Joda pattern into tokens, exactly as ``DateTimeFormat.parseToken`` does.

    Raises:
        InvalidConfigValueError: Empty pattern, or a letter Joda does not know.
    """
    if not pattern:
        raise InvalidConfigValueError(key, "the date format pattern is empty")
    tokens: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c.isascii() and c.isalpha():
            j = i
            while j + 1 < n and pattern[j + 1] == c:
                j += 1
            if c not in JODA_LETTERS:
                raise InvalidConfigValueError(key, f"pattern {pattern!r}: {c!r} is not a Joda-Time pattern letter")
            tokens.append(Token(c, j - i + 1))
            i = j + 1
            continue
        text: list[str] = []
        in_quote = False
        while i < n:
            c = pattern[i]
            if c == "'":
                if i + 1 < n and pattern[i + 1] == "'":
                    text.append("'")
                    i += 1
                else:
                    in_quote = not in_quote
            elif not in_quote and c.isascii() and c.isalpha():
                break
            else:
                text.append(c)
            i += 1
        if text:
            tokens.append(Token("", 0, "".join(text)))
    return tuple(tokens)


class OutputFormat:
    """Prints instants with a Joda pattern, vectorised (``DateTime.toString(formatter)``)."""

    def __init__(self, pattern: str, *, key: str = "hoodie.keygen.timebased.output.dateformat") -> None:
        """Tokenize and check ``pattern``.

        Raises:
            InvalidConfigValueError: The pattern is invalid or uses an unsupported letter.
        """
        self.pattern = pattern
        self.tokens = tokenize(pattern, key=key)
        for token in self.tokens:
            if token.letter in _UNPRINTABLE:
                raise InvalidConfigValueError(key, f"pattern {pattern!r}: {_UNPRINTABLE[token.letter]}")

    def format(
        self, instants: pa.Array, *, zone: str | None = None, offsets: pa.Array | None = None, field: str = ""
    ) -> pa.Array:
        """Print epoch-millisecond instants in a zone.

        Args:
            instants: ``int64`` epoch milliseconds (no nulls).
            zone: An Arrow time zone (IANA name or ``+HH:MM``) for every row; or None to use ``offsets``.
            offsets: Per-row UTC offsets in seconds (used when ``zone`` is None; None means UTC).
            field: The partition field, for error messages.

        Returns:
            A ``string`` array.

        Raises:
            InvalidPartitionValueError: An instant lies outside the years 1-9999 (Arrow's calendar
                kernels wrap beyond 32767; such partition values are always a unit mix-up).
        """
        _check_range(instants, field)
        if zone is not None:
            row_offsets = zone_offsets(instants, zone)
        else:
            row_offsets = offsets if offsets is not None else pc.multiply(instants, 0)
        local_ms = pc.add(instants, pc.multiply(pc.cast(row_offsets, pa.int64()), 1000))
        local = pc.cast(local_ms, pa.timestamp("ms"))
        parts = [self._part(token, local, row_offsets, zone) for token in self.tokens]
        if not any(isinstance(p, pa.Array) for p in parts):
            return pc.fill_null(pa.nulls(len(instants), pa.string()), "".join(str(p) for p in parts))
        if len(parts) == 1:
            return parts[0]
        return pc.binary_join_element_wise(*parts, "")

    @staticmethod
    def _part(token: Token, local: pa.Array, offsets: pa.Array, zone: str | None) -> pa.Array | str:
        letter, count = token.letter, token.count
        if token.is_literal:
            return token.text
        if letter in "yYx":
            year = pc.iso_year(local) if letter == "x" else pc.year(local)
            if count == 2:
                return _padded(_mod(year, 100), 2)
            return _padded(year, count)
        if letter == "C":
            return _padded(pc.divide(pc.year(local), 100), count)
        if letter == "G":
            return pc.if_else(pc.greater(pc.year(local), 0), pa.scalar("AD"), pa.scalar("BC"))
        if letter == "M":
            month = pc.month(local)
            if count >= 3:
                names = MONTHS if count >= 4 else tuple(m[:3] for m in MONTHS)
                return pc.take(pa.array(names), pc.subtract(month, 1))
            return _padded(month, count)
        if letter in "Ee":
            weekday = pc.day_of_week(local, count_from_zero=False, week_start=1)
            if letter == "e":
                return _padded(weekday, count)
            names = DAYS if count >= 4 else tuple(d[:3] for d in DAYS)
            return pc.take(pa.array(names), pc.subtract(weekday, 1))
        if letter == "a":
            return pc.if_else(pc.less(pc.hour(local), 12), pa.scalar("AM"), pa.scalar("PM"))
        if letter == "S":
            millis = pc.cast(pc.millisecond(local), pa.int64())
            # appendFractionOfSecond(n, n): the first n digits of the fraction, zero-padded.
            scaled = pc.divide(millis, 10 ** (3 - count)) if count <= 3 else pc.multiply(millis, 10 ** (count - 3))
            return _padded(scaled, count)
        if letter == "Z":
            return _offset_text(offsets, count, zone)
        return _padded(_number_field(letter, local), count)


def _check_range(instants: pa.Array, field: str) -> None:
    low = pc.less(instants, _MIN_MILLIS)
    bad = pc.or_(low, pc.greater(instants, _MAX_MILLIS))
    if pc.any(bad).as_py():
        value = pc.filter(instants, bad)[0].as_py()
        raise InvalidPartitionValueError(
            field, str(value), "epoch millis outside the years 1-9999; is the time unit right?"
        )


def _number_field(letter: str, local: pa.Array) -> pa.Array:
    """The numeric value of a plain number field."""
    if letter == "d":
        return pc.day(local)
    if letter == "D":
        return pc.day_of_year(local)
    if letter == "w":
        return pc.iso_week(local)
    if letter == "m":
        return pc.minute(local)
    if letter == "s":
        return pc.second(local)
    hour = pc.hour(local)
    if letter == "H":
        return hour
    if letter == "k":  # clock hour of day, 1..24
        return pc.if_else(pc.equal(hour, 0), 24, hour)
    half = _mod(hour, 12)
    if letter == "K":  # hour of half day, 0..11
        return half
    return pc.if_else(pc.equal(half, 0), 12, half)  # "h": clock hour of half day, 1..12


def _mod(values: pa.Array, divisor: int) -> pa.Array:
    """Non-negative remainder (Arrow has no modulo kernel)."""
    values = pc.cast(values, pa.int64())
    rem = pc.subtract(values, pc.multiply(pc.divide(values, divisor), divisor))
    return pc.if_else(pc.less(rem, 0), pc.add(rem, divisor), rem)


def _padded(values: pa.Array, width: int) -> pa.Array:
    """Decimal text zero-padded to ``width`` digits, sign first (Joda's ``appendPaddedInteger``)."""
    values = pc.cast(values, pa.int64())
    text = pc.cast(pc.abs(values), pa.string())
    if width > 1:
        text = pc.utf8_lpad(text, width=width, padding="0")
    return pc.if_else(pc.less(values, 0), pc.binary_join_element_wise("-", text, ""), text)


def _offset_text(offsets: pa.Array, count: int, zone: str | None) -> pa.Array | str:
    """``Z`` (``+0530``), ``ZZ`` (``+05:30``) or ``ZZZ`` (zone id) for per-row offsets in seconds."""
    if count >= 3 and zone is not None:
        return zone
    seconds = pc.cast(offsets, pa.int64())
    magnitude = pc.abs(seconds)
    hours = _padded(pc.divide(magnitude, 3600), 2)
    minutes = _padded(pc.divide(_mod(magnitude, 3600), 60), 2)
    sign = pc.if_else(pc.less(seconds, 0), pa.scalar("-"), pa.scalar("+"))
    text = pc.binary_join_element_wise(sign, pc.binary_join_element_wise(hours, minutes, ":" if count >= 2 else ""), "")
    if count >= 3:  # a fixed-offset zone's id: "UTC" for zero, else "+05:30"
        return pc.if_else(pc.equal(seconds, 0), pa.scalar("UTC"), text)
    return text
