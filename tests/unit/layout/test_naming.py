"""Base and log file name codecs."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.errors import HudiError
from hudi_framework.layout.naming import (
    BaseFileName,
    FileNameError,
    LogFileName,
    make_write_token,
    new_file_id,
    next_log_version,
    parse_data_file_name,
)

# Real names from the fixture tables (hudi-format.md section 3).
BASE = "97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0_0-119-166_20240418172804498.parquet"
LOG_V6 = ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.2_1-0-1"
LOG_V9 = ".5dc94328-3d16-4d4f-bdf7-977f328da8fb-0_20260307162638495.log.1_0-104-236"

ids = st.from_regex(r"[a-zA-Z0-9-]{1,40}", fullmatch=True)
digits = st.from_regex(r"[0-9]{1,20}", fullmatch=True)
log_tokens = st.from_regex(r"[0-9]{1,5}-[0-9]{1,5}-[0-9]{1,5}", fullmatch=True)


def test_parse_real_base_file_name() -> None:
    name = BaseFileName.parse(BASE)
    assert name == BaseFileName("97de74b1-2a8e-4bb7-874c-0a74e1f42a77-0", "0-119-166", "20240418172804498", "parquet")
    assert name.name == BASE == str(name)


def test_parse_real_log_file_names() -> None:
    v6 = LogFileName.parse(LOG_V6)
    assert (v6.file_id, v6.instant_time, v6.version, v6.write_token, v6.cdc) == (
        "0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0",
        "20250126040823628",
        2,
        "1-0-1",
        False,
    )
    assert v6.name == LOG_V6
    assert LogFileName.parse(LOG_V9).name == LOG_V9


def test_cdc_and_archive_and_tokenless_logs() -> None:
    cdc = LogFileName.parse(".abc-0_20240101000000000.log.1_0-1-2.cdc")
    assert cdc.cdc
    assert cdc.name == ".abc-0_20240101000000000.log.1_0-1-2.cdc"
    archive = LogFileName.parse(".commits_.archive.3_1-0-1")
    assert (archive.file_id, archive.instant_time, archive.extension) == ("commits", "", "archive")
    old = LogFileName.parse(".abc-0_20240101000000000.log.4")
    assert old.write_token is None
    assert old.name == ".abc-0_20240101000000000.log.4"


@pytest.mark.parametrize(
    "name",
    [
        ".hoodie_partition_metadata",
        ".hoodie_partition_metadata.parquet",
        ".DS_Store",
        "part-00000.parquet",
        "abc_0-1-2_2024.parquet.crc",
        "..abc-0_20240101000000000.log.1_0-1-2.crc",
        "a_b_c_20240101.parquet",
        "abc-0_0-1-2_2024x.parquet",
        "",
    ],
)
def test_other_files_are_not_data_files(name: str) -> None:
    assert parse_data_file_name(name) is None


def test_classify() -> None:
    assert isinstance(parse_data_file_name(BASE), BaseFileName)
    assert isinstance(parse_data_file_name(LOG_V6), LogFileName)
    assert isinstance(parse_data_file_name("f-0_1-2-3_20240101000000000.lance"), BaseFileName)


def test_parse_errors_are_hudi_value_errors() -> None:
    with pytest.raises(FileNameError, match="not a base file name") as info:
        BaseFileName.parse("nope.parquet")
    assert isinstance(info.value, HudiError)
    assert isinstance(info.value, ValueError)
    with pytest.raises(FileNameError, match="not a log file name"):
        LogFileName.parse(BASE)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"file_id": "a_b"},
        {"file_id": ""},
        {"write_token": "0.1"},
        {"instant_time": "2024-01-01"},
        {"extension": "tar.gz"},
    ],
)
def test_base_constructor_validates(kwargs: dict[str, str]) -> None:
    args = {
        "file_id": "f-0",
        "write_token": "0-1-2",
        "instant_time": "20240101000000000",
        "extension": "parquet",
    }
    args.update(kwargs)
    with pytest.raises(FileNameError):
        BaseFileName(**args)


def test_log_constructor_validates() -> None:
    with pytest.raises(FileNameError):
        LogFileName("f-0", "20240101000000000", write_token="a-b-c")
    with pytest.raises(FileNameError):
        LogFileName("f-0", "", extension="log")
    with pytest.raises(FileNameError):
        LogFileName("f-0", "1", version=-1)
    with pytest.raises(FileNameError):
        LogFileName("f-0", "1", extension="txt")
    with pytest.raises(FileNameError):
        LogFileName("f-0", "1", write_token=None, cdc=True)


@given(file_id=ids, token=ids, instant=digits, ext=st.from_regex(r"[a-zA-Z0-9]{1,8}", fullmatch=True))
def test_base_round_trip(file_id: str, token: str, instant: str, ext: str) -> None:
    name = BaseFileName(file_id, token, instant, ext)
    assert BaseFileName.parse(name.name) == name
    assert parse_data_file_name(name.name) == name


@given(
    file_id=ids,
    instant=digits,
    version=st.integers(0, 10**6),
    token=st.none() | log_tokens,
    cdc=st.booleans(),
)
def test_log_round_trip(file_id: str, instant: str, version: int, token: str | None, cdc: bool) -> None:
    cdc = cdc and token is not None
    name = LogFileName(file_id, instant, version, token, cdc=cdc)
    assert LogFileName.parse(name.name) == name
    assert parse_data_file_name(name.name) == name


def test_log_sort_key_is_java_order() -> None:
    names = [
        LogFileName("f-0", "2", 1, "0-1-1"),
        LogFileName("f-0", "1", 10, "0-1-1"),
        LogFileName("f-0", "1", 2, "1-0-1"),
        LogFileName("f-0", "1", 2, "0-33-43"),
        LogFileName("f-0", "1", 2, None),
        LogFileName("f-0", "1", 2, "0-33-43", cdc=True),
    ]
    ordered = sorted(names, key=LogFileName.sort_key)
    assert [(n.instant_time, n.version, n.write_token, n.cdc) for n in ordered] == [
        ("1", 2, None, False),
        ("1", 2, "0-33-43", False),
        ("1", 2, "0-33-43", True),
        ("1", 2, "1-0-1", False),
        ("1", 10, "0-1-1", False),
        ("2", 1, "0-1-1", False),
    ]


def test_new_file_id_and_write_token() -> None:
    file_id = new_file_id()
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}-0", file_id)
    assert new_file_id("abc", 3) == "abc-3"
    assert new_file_id() != new_file_id()
    assert make_write_token(0, 119, 166) == "0-119-166"
    with pytest.raises(FileNameError):
        make_write_token(-1, 0, 0)
    with pytest.raises(FileNameError):
        new_file_id("a_b")
    with pytest.raises(FileNameError):
        new_file_id("abc", -1)


def test_next_log_version() -> None:
    existing = [
        LogFileName("f-0", "1", 1),
        LogFileName("f-0", "1", 3),
        LogFileName("f-0", "1", 7, cdc=True),
        LogFileName("f-0", "2", 9),
        LogFileName("g-0", "1", 5),
    ]
    assert next_log_version(existing, "f-0", "1") == 4
    assert next_log_version(existing, "f-0", "3") == 1
