from __future__ import annotations

import datetime as dt
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.timeline.instant_time import (
    InstantTimeGenerator,
    datetime_to_instant_time,
    epoch_ms_to_instant_time,
    format_instant_time,
    instant_time_to_epoch_ms,
    is_valid_instant_time,
    parse_instant_time,
    successor,
)
from hudi_framework.vocabulary import TimelineTimezone

moments = st.datetimes(min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(9998, 12, 31)).map(
    lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
)


@given(moments)
def test_format_parse_round_trip(moment: dt.datetime) -> None:
    text = format_instant_time(moment)
    assert len(text) == 17
    assert text.isdigit()
    assert parse_instant_time(text) == moment


@given(moments, moments)
def test_string_order_is_time_order(a: dt.datetime, b: dt.datetime) -> None:
    assert (format_instant_time(a) < format_instant_time(b)) == (a < b)


@given(moments)
def test_successor_is_next_millisecond(moment: dt.datetime) -> None:
    text = format_instant_time(moment)
    nxt = successor(text)
    assert nxt > text
    assert parse_instant_time(nxt) - moment == dt.timedelta(milliseconds=1)


def test_legacy_14_digit_times_parse_with_999_ms() -> None:
    assert parse_instant_time("20240418172802") == dt.datetime(2024, 4, 18, 17, 28, 2, 999000)
    assert successor("20240418172802") > "20240418172802"


def test_reserved_values() -> None:
    assert is_valid_instant_time("00000000000000")
    assert is_valid_instant_time("00000000000000001")
    assert not is_valid_instant_time("0")
    assert not is_valid_instant_time("2024041817280")
    assert successor("00000000000000000") == "00000000000000001"
    assert successor("00000000000000") > "00000000000000"
    with pytest.raises(ValueError, match="not an instant time"):
        parse_instant_time("20240418x72802262")


def test_epoch_conversions_utc() -> None:
    # Same values hudi-rs reports as epoch_mills for fixture instants.
    assert instant_time_to_epoch_ms("20260307162557587") == 1772900757587
    assert epoch_ms_to_instant_time(1772900757587, TimelineTimezone.UTC) == "20260307162557587"
    aware = dt.datetime(2026, 3, 7, 16, 25, 57, 587000, tzinfo=dt.UTC)
    assert datetime_to_instant_time(aware, TimelineTimezone.UTC) == "20260307162557587"
    local = datetime_to_instant_time(aware, TimelineTimezone.LOCAL)
    assert instant_time_to_epoch_ms(local, TimelineTimezone.LOCAL) == 1772900757587


def test_generator_strictly_increasing_within_one_millisecond() -> None:
    frozen = dt.datetime(2024, 1, 1, 12, 0, 0, 5000)
    gen = InstantTimeGenerator(clock=lambda: frozen)
    times = [gen.next() for _ in range(1000)]
    assert times == sorted(set(times))
    assert times[0] == "20240101120000005"
    assert gen.last_issued == times[-1]


def test_generator_never_goes_back_when_the_clock_does() -> None:
    now = [dt.datetime(2024, 1, 1, 12, 0, 1)]
    gen = InstantTimeGenerator(clock=lambda: now[0])
    first = gen.next()
    now[0] = dt.datetime(2024, 1, 1, 11, 0, 0)
    assert gen.next() > first


def test_generator_respects_after() -> None:
    gen = InstantTimeGenerator(clock=lambda: dt.datetime(2024, 1, 1))
    assert gen.next(after="20300101000000000") == "20300101000000001"
    assert gen.next() == "20300101000000002"


def test_generator_uses_the_configured_zone() -> None:
    gen = InstantTimeGenerator(TimelineTimezone.UTC)
    assert gen.timezone is TimelineTimezone.UTC
    before = format_instant_time(dt.datetime.now(dt.UTC))
    assert gen.next() >= before


def test_generator_thread_safe() -> None:
    gen = InstantTimeGenerator(clock=lambda: dt.datetime(2024, 1, 1))
    out: list[str] = []
    lock = threading.Lock()

    def work() -> None:
        mine = [gen.next() for _ in range(200)]
        assert mine == sorted(mine)
        with lock:
            out.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(out)) == 1600
