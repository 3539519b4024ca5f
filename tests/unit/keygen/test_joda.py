"""Joda-Time patterns and Java time-zone ids."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.errors import InvalidConfigValueError
from hudi_keygen_builtin.joda_format import OutputFormat, Token, tokenize
from hudi_keygen_builtin.joda_parse import InputParser
from hudi_keygen_builtin.zones import arrow_zone

INSTANTS = pa.array([1705311000123, 0, 1705367700000], pa.int64())


def test_tokenize_quotes_and_literals() -> None:
    assert tokenize("yyyy'T''s'-MM", key="k") == (
        Token("y", 4),
        Token("", 0, "T's-"),
        Token("M", 2),
    )
    assert tokenize("''", key="k") == (Token("", 0, "'"),)


@pytest.mark.parametrize("pattern", ["", "yyyy-qq", "bb"])
def test_tokenize_rejects_what_joda_rejects(pattern: str) -> None:
    with pytest.raises(InvalidConfigValueError):
        tokenize(pattern, key="hoodie.keygen.timebased.output.dateformat")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("yyyy/MM/dd/HH", ["2024/01/15/09", "1970/01/01/00", "2024/01/16/01"]),
        ("yyyyMMdd", ["20240115", "19700101", "20240116"]),
        ("yy-M-d H:m:s", ["24-1-15 9:30:0", "70-1-1 0:0:0", "24-1-16 1:15:0"]),
        ("S|SS|SSS|SSSS", ["1|12|123|1230", "0|00|000|0000", "0|00|000|0000"]),
        ("hh a, kk, KK", ["09 AM, 09, 09", "12 AM, 24, 00", "01 AM, 01, 01"]),
        ("EEE EEEE e", ["Mon Monday 1", "Thu Thursday 4", "Tue Tuesday 2"]),
        ("MMM MMMM", ["Jan January", "Jan January", "Jan January"]),
        ("D DDD w ww x", ["15 015 3 03 2024", "1 001 1 01 1970", "16 016 3 03 2024"]),
        ("G C", ["AD 20", "AD 19", "AD 20"]),
        ("Z ZZ ZZZ", ["+0000 +00:00 UTC"] * 3),
        ("'week' w", ["week 3", "week 1", "week 3"]),
    ],
)
def test_output_patterns(pattern: str, expected: list[str]) -> None:
    assert OutputFormat(pattern).format(INSTANTS, zone="UTC").to_pylist() == expected


def test_output_with_per_row_offsets() -> None:
    offsets = pa.array([19800, -3600, 0], pa.int64())
    out = OutputFormat("HH:mm Z ZZ ZZZ").format(INSTANTS, offsets=offsets).to_pylist()
    assert out == ["15:00 +0530 +05:30 +05:30", "23:00 -0100 -01:00 -01:00", "01:15 +0000 +00:00 UTC"]


def test_time_zone_names_are_not_printable() -> None:
    with pytest.raises(InvalidConfigValueError, match="time zone names"):
        OutputFormat("yyyy z")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-15T10:30:00.000Z", 1705314600000),
        ("2024-01-15t10:30:00.5+01:00", 1705311000500),
        ("2024-01-15T10:30:00.123456789-0130", 1705320000123),
    ],
)
def test_input_parsing(text: str, expected: int) -> None:
    parser = InputParser(("yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSSZ",))
    instants, _ = parser.parse(pa.array([text]), zone="UTC", field="f")
    assert instants.to_pylist() == [expected]


def test_fraction_digits_beyond_the_pattern_do_not_parse() -> None:
    parser = InputParser(("ss.SSS",))
    instants, _ = parser.parse(pa.array(["01.5", "01.12", "01.123"]), zone="UTC", field="f")
    assert instants.to_pylist() == [1500, 1120, 1123]


def test_two_digit_years_pivot_around_now_minus_thirty() -> None:
    parser = InputParser(("yy-MM-dd",))
    instants, _ = parser.parse(pa.array(["24-01-15", "99-01-15"]), zone="UTC", field="f")
    years = pc.year(pc.cast(instants, pa.timestamp("ms"))).to_pylist()
    assert years[0] == 2024
    assert years[1] in (1999, 2099)


def test_text_months_and_halfday() -> None:
    parser = InputParser(("dd MMM yyyy hh:mm a",))
    instants, offsets = parser.parse(
        pa.array(["15 jan 2024 12:30 pm", "15 JANUARY 2024 12:30 AM"]), zone="UTC", field="f"
    )
    assert instants.to_pylist() == [1705321800000, 1705278600000]
    assert offsets.to_pylist() == [None, None]


@pytest.mark.parametrize("pattern", ["xxxx-ww", "EEE yyyy", "yyyy ZZZ", "yyyy z", "yyyy-MM-dd yyyy"])
def test_patterns_that_cannot_be_parsed(pattern: str) -> None:
    with pytest.raises(InvalidConfigValueError):
        InputParser((pattern,))


@pytest.mark.parametrize(
    ("java", "arrow"),
    [
        ("UTC", "UTC"),
        ("GMT", "UTC"),
        ("Z", "UTC"),
        ("GMT+8", "+08:00"),
        ("GMT+08:00", "+08:00"),
        ("GMT-0530", "-05:30"),
        ("UTC+0", "UTC"),
        ("PST", "America/Los_Angeles"),
        ("IST", "Asia/Kolkata"),
        ("EST", "-05:00"),
        ("Europe/Paris", "Europe/Paris"),
    ],
)
def test_java_zone_ids(java: str, arrow: str) -> None:
    assert arrow_zone(java) == arrow


@pytest.mark.parametrize("java", ["Mars/Olympus", "+05:00", "GMT+25", "nowhere"])
def test_unknown_zone_ids_fail_instead_of_falling_back_to_gmt(java: str) -> None:
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.keygen\.timebased\.input\.timezone"):
        arrow_zone(java, key="hoodie.keygen.timebased.input.timezone")
