"""Parsing date strings with Joda-Time patterns, vectorised (the ``DATE_STRING`` input of timestamps).

Java builds one parser from the list of input patterns (``DateTimeFormatterBuilder.append(null,
parsers)``): the first pattern that consumes the whole string wins. Each pattern becomes an anchored
RE2 regular expression with a named group per field; ``pc.extract_regex`` runs it on all rows and the
fields are combined with integer kernels. Like Joda, numeric fields read up to their maximum width
(two digits for month, day, hours...; up to nine for a year unless a number follows), literals
and names match case-insensitively, and a missing field defaults to 1970-01-01T00:00:00.000.

Supported letters: ``y Y M d H h K k m s S a Z ZZ``. Others (week years, day names, zone names)
are rejected when the key generator is built.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import InvalidConfigValueError, InvalidPartitionValueError
from hudi_keygen_builtin.joda_format import MONTHS, Token, tokenize
from hudi_keygen_builtin.zones import local_to_utc

_PARSABLE = frozenset("yYMdHhKkmsSaZ")
#: Marks "this pattern has no offset" so coalescing across patterns does not fall through.
_NO_OFFSET = -(10**9)
_MILLIS_PER_DAY = 86_400_000
_RE2_META = frozenset("\\.+*?()|[]{}^$")


@dataclass(frozen=True, slots=True)
class _Compiled:
    pattern: str
    regex: str
    tokens: tuple[Token, ...]


class InputParser:
    """Parses strings with an ordered list of Joda patterns."""

    def __init__(self, patterns: tuple[str, ...], *, key: str = "hoodie.keygen.timebased.input.dateformat") -> None:
        """Compile ``patterns``.

        Raises:
            InvalidConfigValueError: No pattern, or a pattern Joda rejects or this module does not parse.
        """
        if not patterns:
            raise InvalidConfigValueError(key, "DATE_STRING and MIXED timestamps need an input date format")
        # Joda's two-digit year pivot is "now - 30 years", fixed when the formatter is built.
        self._pivot = dt.datetime.now(dt.UTC).year - 30
        self._compiled = tuple(_compile(p, key=key) for p in patterns)

    @property
    def first_pattern(self) -> str:
        """The first input pattern (Java formats the default value of null fields with it)."""
        return self._compiled[0].pattern

    def parse(self, text: pa.Array, *, zone: str, field: str) -> tuple[pa.Array, pa.Array]:
        """Parse strings to instants (null stays null).

        Args:
            text: ``string`` values.
            zone: Arrow zone for strings without an offset.
            field: The partition field, for error messages.

        Returns:
            ``(instants, offsets)``: epoch milliseconds, and the parsed UTC offset in seconds (null
            where the matching pattern has no offset field).

        Raises:
            InvalidPartitionValueError: A value matches no pattern, or has an out-of-range field.
        """
        parts = [self._fields(c, text) for c in self._compiled]
        names = ("year", "month", "day", "hour", "minute", "second", "millis", "offset")
        merged = {n: pc.coalesce(*(p[n] for p in parts)) if len(parts) > 1 else parts[0][n] for n in names}
        unmatched = pc.and_(pc.is_valid(text), pc.is_null(merged["year"]))
        if pc.any(unmatched).as_py():
            bad = pc.filter(text, unmatched)[0].as_py()
            formats = ", ".join(repr(c.pattern) for c in self._compiled)
            raise InvalidPartitionValueError(field, bad, f"matches none of the input date formats {formats}")
        _check_ranges(merged, text, field)
        days = _days_from_civil(merged["year"], merged["month"], merged["day"])
        local = pc.add(
            pc.multiply(days, _MILLIS_PER_DAY),
            pc.add(
                pc.add(pc.multiply(merged["hour"], 3_600_000), pc.multiply(merged["minute"], 60_000)),
                pc.add(pc.multiply(merged["second"], 1000), merged["millis"]),
            ),
        )
        offsets = pc.if_else(pc.equal(merged["offset"], _NO_OFFSET), pa.scalar(None, pa.int64()), merged["offset"])
        in_zone = _local_to_utc(local, zone, field)
        instants = pc.if_else(pc.is_null(offsets), in_zone, pc.subtract(local, pc.multiply(offsets, 1000)))
        return instants, offsets

    def _fields(self, compiled: _Compiled, text: pa.Array) -> dict[str, pa.Array]:
        """Every field of every row the pattern matches (defaults filled), null where it does not match."""
        groups = _Groups(compiled, text)
        letters = groups.letters
        year_letter = "y" if "y" in letters else "Y"
        year = groups.number(year_letter, 1970)
        if year_letter in letters and letters[year_letter].count == 2:
            year = self._two_digit_year(year, groups.raw(year_letter))
        if "M" in letters and letters["M"].count >= 3:
            month = groups.where_matched(_month_number(groups.raw("M")))
        else:
            month = groups.number("M", 1)
        millis = groups.where_matched(pa.scalar(0, pa.int64()))
        if "S" in letters:
            # Joda reads the fraction digit by digit: 100 ms, 10 ms, 1 ms, then nothing.
            digits = pc.utf8_slice_codeunits(pc.utf8_rpad(groups.raw("S"), width=3, padding="0"), 0, 3)
            millis = groups.where_matched(pc.cast(digits, pa.int64()))
        offset = groups.where_matched(pa.scalar(_NO_OFFSET, pa.int64()))
        if "Z" in letters:
            offset = groups.where_matched(_offset_seconds(groups.raw("Z")))
        return {
            "year": year, "month": month, "day": groups.number("d", 1), "hour": _hour(groups),
            "minute": groups.number("m", 0), "second": groups.number("s", 0), "millis": millis, "offset": offset,
        }  # fmt: skip

    def _two_digit_year(self, year: pa.Array, raw: pa.Array) -> pa.Array:
        """Joda's ``appendTwoDigitYear``: two plain digits pick the year in [pivot-50, pivot+49]."""
        two = pc.match_substring_regex(raw, r"^\d\d$")
        low = self._pivot - 50
        candidate = pc.add(year, low - low % 100)
        candidate = pc.if_else(pc.less(candidate, low), pc.add(candidate, 100), candidate)
        return pc.if_else(pc.fill_null(two, False), candidate, year)


class _Groups:
    """The named groups one pattern extracted, with defaults for fields the pattern lacks."""

    def __init__(self, compiled: _Compiled, text: pa.Array) -> None:
        self.letters = {t.letter: t for t in compiled.tokens if not t.is_literal}
        self._groups = pc.extract_regex(text, compiled.regex)
        # extract_regex yields null for rows the pattern does not match in full.
        self.matched = pc.is_valid(self._groups)

    def raw(self, letter: str) -> pa.Array:
        """The text a field matched."""
        return pc.struct_field(self._groups, [self._groups.type.get_field_index(letter)])

    def where_matched(self, values: pa.Array | pa.Scalar) -> pa.Array:
        """``values`` on matched rows, null elsewhere."""
        return pc.if_else(self.matched, values, pa.scalar(None, pa.int64()))

    def number(self, letter: str, default: int) -> pa.Array:
        """A numeric field (sign allowed), or ``default`` when the pattern has no such field."""
        if letter not in self.letters:
            return self.where_matched(pa.scalar(default, pa.int64()))
        return self.where_matched(pc.cast(pc.replace_substring_regex(self.raw(letter), r"^\+", ""), pa.int64()))


def _hour(groups: _Groups) -> pa.Array:
    """Hour of day from ``H``, ``k`` (1..24, 24 is midnight) or ``h``/``K`` with ``a``."""
    letters = groups.letters
    if "H" in letters:
        return groups.number("H", 0)
    if "k" in letters:
        k = groups.number("k", 0)
        return pc.if_else(pc.equal(k, 24), 0, k)
    half = groups.number("h" if "h" in letters else "K", 0)
    if "h" in letters:
        half = pc.if_else(pc.equal(half, 12), 0, half)
    if "a" in letters:
        half = pc.if_else(pc.equal(pc.utf8_upper(groups.raw("a")), "PM"), pc.add(half, 12), half)
    return half


def _compile(pattern: str, *, key: str) -> _Compiled:
    tokens = tokenize(pattern, key=key)
    seen: set[str] = set()
    pieces: list[str] = []
    for index, token in enumerate(tokens):
        if token.is_literal:
            pieces.append(f"(?i:{_re2_literal(token.text)})")
            continue
        letter = token.letter
        if letter not in _PARSABLE or (letter == "Z" and token.count > 2):
            raise InvalidConfigValueError(key, f"pattern {pattern!r}: {letter * token.count!r} cannot be parsed here")
        if letter in seen or (letter in "yY" and seen & set("yY")):
            raise InvalidConfigValueError(key, f"pattern {pattern!r}: field {letter!r} appears twice")
        seen.add(letter)
        next_numeric = index + 1 < len(tokens) and tokens[index + 1].is_numeric
        pieces.append(f"(?P<{letter}>{_field_regex(token, next_numeric=next_numeric)})")
    return _Compiled(pattern, "^" + "".join(pieces) + "$", tokens)


def _re2_literal(text: str) -> str:
    """``text`` as an RE2 literal (Python's ``re.escape`` escapes spaces, which RE2 rejects)."""
    return "".join("\\" + c if c in _RE2_META else c for c in text)


def _field_regex(token: Token, *, next_numeric: bool) -> str:
    letter, count = token.letter, token.count
    if letter in "yY":
        if count == 2:
            return r"\d{2}" if next_numeric else r"[-+]?\d+"
        return rf"[-+]?\d{{1,{count if next_numeric else 9}}}"
    if letter == "M" and count >= 3:
        names = sorted({*MONTHS, *(m[:3] for m in MONTHS)}, key=len, reverse=True)
        return "(?i:" + "|".join(names) + ")"
    if letter == "S":
        return rf"\d{{1,{count}}}"
    if letter == "a":
        return "(?i:AM|PM)"
    if letter == "Z":
        return r"[zZ]|[-+]\d{2}(?::?\d{2})?"
    return r"\d{1,2}"


def _month_number(names: pa.Array) -> pa.Array:
    key = pc.utf8_slice_codeunits(pc.utf8_lower(names), 0, 3)
    return pc.add(pc.cast(pc.index_in(key, pa.array([m[:3].lower() for m in MONTHS])), pa.int64()), 1)


def _offset_seconds(raw: pa.Array) -> pa.Array:
    """``Z``/``+05:30``/``+0530``/``+05`` as seconds east of UTC."""
    raw = pc.if_else(pc.equal(pc.utf8_upper(raw), "Z"), pa.scalar("+00"), raw)
    digits = pc.utf8_rpad(pc.replace_substring(pc.utf8_slice_codeunits(raw, 1), ":", ""), width=4, padding="0")
    hours = pc.cast(pc.utf8_slice_codeunits(digits, 0, 2), pa.int64())
    minutes = pc.cast(pc.utf8_slice_codeunits(digits, 2, 4), pa.int64())
    magnitude = pc.add(pc.multiply(hours, 3600), pc.multiply(minutes, 60))
    return pc.if_else(pc.starts_with(raw, "-"), pc.negate(magnitude), magnitude)


def _check_ranges(fields: dict[str, pa.Array], text: pa.Array, field: str) -> None:
    """Joda's ``IllegalFieldValueException`` checks, naming the first bad value."""
    year, month, day, offset = fields["year"], fields["month"], fields["day"], fields["offset"]
    leap = pc.and_(pc.equal(_rem(year, 4), 0), pc.or_(pc.not_equal(_rem(year, 100), 0), pc.equal(_rem(year, 400), 0)))
    month_days = pc.take(pa.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], pa.int64()),
                         pc.subtract(pc.min_element_wise(pc.max_element_wise(month, 1), 12), 1))  # fmt: skip
    month_days = pc.if_else(pc.and_(leap, pc.equal(month, 2)), 29, month_days)
    checks = [
        (pc.or_(pc.less(month, 1), pc.greater(month, 12)), "month is out of range"),
        (pc.or_(pc.less(day, 1), pc.greater(day, month_days)), "day of month is out of range"),
        (pc.greater(fields["hour"], 23), "hour is out of range"),
        (pc.greater(fields["minute"], 59), "minute is out of range"),
        (pc.greater(fields["second"], 59), "second is out of range"),
        (pc.and_(pc.not_equal(offset, _NO_OFFSET), pc.greater(pc.abs(offset), 86_399)), "offset is out of range"),
    ]
    for bad, reason in checks:
        if pc.any(bad).as_py():
            raise InvalidPartitionValueError(field, pc.filter(text, bad)[0].as_py(), reason)


def _rem(values: pa.Array, divisor: int) -> pa.Array:
    return pc.subtract(values, pc.multiply(pc.divide(values, divisor), divisor))


def _floor_div(values: pa.Array, divisor: int) -> pa.Array:
    quotient = pc.divide(values, divisor)
    return pc.if_else(pc.less(_rem(values, divisor), 0), pc.subtract(quotient, 1), quotient)


def _days_from_civil(year: pa.Array, month: pa.Array, day: pa.Array) -> pa.Array:
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant's ``days_from_civil``)."""
    y = pc.if_else(pc.less_equal(month, 2), pc.subtract(year, 1), year)
    era = _floor_div(y, 400)
    yoe = pc.subtract(y, pc.multiply(era, 400))
    mp = pc.if_else(pc.greater(month, 2), pc.subtract(month, 3), pc.add(month, 9))
    doy = pc.add(pc.divide(pc.add(pc.multiply(mp, 153), 2), 5), pc.subtract(day, 1))
    doe = pc.add(pc.subtract(pc.add(pc.multiply(yoe, 365), pc.divide(yoe, 4)), pc.divide(yoe, 100)), doy)
    return pc.subtract(pc.add(pc.multiply(era, 146_097), doe), 719_468)


def _local_to_utc(local: pa.Array, zone: str, field: str) -> pa.Array:
    """Local wall-clock millis in ``zone`` to epoch millis (earlier instant when ambiguous)."""
    try:
        return local_to_utc(local, zone)
    except ValueError as e:
        # The message names the wall-clock time; which input string it came from is not tracked.
        raise InvalidPartitionValueError(
            field, str(e), f"not a valid local time in {zone} (daylight saving gap)"
        ) from e
