"""Read options: Hudi option names, query types, instant bounds."""

from __future__ import annotations

import pytest

from hudi_framework.config.sections import ReadSettings
from hudi_framework.errors import InvalidConfigValueError, InvalidInstantTimeError
from hudi_framework.read import ReadOptions, build_options, resolve_instant_time
from hudi_framework.vocabulary import QueryType, TimelineTimezone


def test_from_hoodie_options_reads_hudi_names_case_insensitively() -> None:
    # Spark lower-cases option keys; values keep their case.
    options = ReadOptions.from_hoodie_options(
        {
            "Hoodie.Datasource.Query.Type": "INCREMENTAL",
            "hoodie.datasource.read.begin.instanttime": "20240101000000000",
            "HOODIE.DATASOURCE.READ.END.INSTANTTIME": " 20240102000000000 ",
            "hoodie.datasource.read.incr.fallback.fulltablescan.enable": "False",
            "path": "/ignored",
        }
    )
    assert options.query_type is QueryType.INCREMENTAL
    assert options.begin == "20240101000000000"
    assert options.end == "20240102000000000"
    assert options.incremental_fallback_full_scan is False
    assert ReadOptions.from_hoodie_options({"as.of.instant": "20240101"}).as_of == "20240101"


@pytest.mark.parametrize(("text", "expected"), [("snapshot", QueryType.SNAPSHOT),
                                                ("read_optimized", QueryType.READ_OPTIMIZED),
                                                ("Read-Optimized", QueryType.READ_OPTIMIZED)])  # fmt: skip
def test_query_type_spellings(text: str, expected: QueryType) -> None:
    assert ReadOptions.from_hoodie_options({"hoodie.datasource.query.type": text}).query_type is expected


def test_bad_option_values() -> None:
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.datasource\.query\.type"):
        ReadOptions.from_hoodie_options({"hoodie.datasource.query.type": "cdc"})
    with pytest.raises(InvalidConfigValueError, match="fulltablescan"):
        ReadOptions.from_hoodie_options({"hoodie.datasource.read.incr.fallback.fulltablescan.enable": "yes"})


def test_keywords_win_over_the_option_map() -> None:
    options = build_options(query_type="read_optimized", options={"hoodie.datasource.query.type": "snapshot"})
    assert options.query_type is QueryType.READ_OPTIMIZED
    assert build_options(columns="id").columns == ("id",)


def test_options_must_fit_the_query_type() -> None:
    with pytest.raises(InvalidConfigValueError, match=r"as\.of\.instant"):
        build_options(query_type="incremental", as_of="20240101000000000")
    with pytest.raises(InvalidConfigValueError, match="begin"):
        build_options(begin="20240101000000000")
    with pytest.raises(InvalidConfigValueError, match="end"):
        build_options(query_type="read_optimized", end="20240101000000000")


def test_from_settings() -> None:
    settings = ReadSettings(query_type="incremental", begin_instant="2024-01-01", end_instant="20240102000000000")
    options = ReadOptions.from_settings(settings, columns=("id",))
    assert options.query_type is QueryType.INCREMENTAL
    assert (options.begin, options.end, options.columns) == ("20240101000000", "20240102000000000", ("id",))


def test_options_are_frozen() -> None:
    options = ReadOptions()
    with pytest.raises(ValueError, match="frozen"):
        options.as_of = "1"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("earliest", None),
        ("20240101120000123", "20240101120000123"),
        # Java compares instant strings as they are: a 14-digit bound is the start of that second.
        ("20240101120000", "20240101120000"),
        ("000", "000"),
        ("2024-01-01", "20240101000000000"),
        ("2024-01-01 12:30:05.250", "20240101123005250"),
        ("2024-01-01T12:30:05+02:00", "20240101103005000"),
    ],
)
def test_resolve_instant_time(value: str | None, expected: str | None) -> None:
    assert resolve_instant_time(value, TimelineTimezone.UTC) == expected


@pytest.mark.parametrize("value", ["yesterday", "2024-13-01", "2024-01-01T25:00"])
def test_resolve_instant_time_rejects(value: str) -> None:
    with pytest.raises(InvalidInstantTimeError):
        resolve_instant_time(value)
