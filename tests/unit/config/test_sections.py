"""Section models, value types and enums on their own."""

from __future__ import annotations

import datetime as dt
from uuid import UUID

import pytest
from pydantic import BaseModel, ValidationError

from hudi_framework import Components
from hudi_framework.config import ComponentRef, HudiSettings, MergerSettings, StorageSettings, TableSettings
from hudi_framework.config.base import InstantTime, Section
from hudi_framework.errors import PluginError
from hudi_framework.vocabulary import ConcurrencyMode, RecordMergeMode, TableType, TableVersion


class _Instant(BaseModel):
    at: InstantTime


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("000", "000"),
        ("20240115103000", "20240115103000"),
        ("20240115103000123", "20240115103000123"),
        ("2024-01-15 10:30:00", "20240115103000"),
        ("2024-01-15T10:30:00.123", "20240115103000123"),
        ("2024-01-15", "20240115000000"),
        (dt.date(2024, 1, 15), "20240115000000"),
        (dt.datetime(2024, 1, 15, 10, 30, 0, 123000), "20240115103000123"),
        (20240115103000, "20240115103000"),
    ],
)
def test_instant_time_spellings(given: object, expected: str) -> None:
    assert _Instant(at=given).at == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("given", ["yesterday", "2024/01/15", "", "1" * 18])
def test_bad_instant_times(given: str) -> None:
    with pytest.raises(ValidationError):
        _Instant(at=given)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("cow", TableType.COPY_ON_WRITE),
        ("Merge_On_Read", TableType.MERGE_ON_READ),
        ("MOR", TableType.MERGE_ON_READ),
    ],
)
def test_table_type_spellings(given: str, expected: TableType) -> None:
    assert TableSettings(type=given).type is expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("given", "expected"), [(6, 6), ("8", 8), ("NINE", 9), ("nine", 9)])
def test_table_version_spellings(given: object, expected: int) -> None:
    assert TableSettings(version=given).version == TableVersion(expected)  # type: ignore[arg-type]


def test_concurrency_mode_alias() -> None:
    assert ConcurrencyMode("occ") is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL
    assert ConcurrencyMode("OPTIMISTIC-CONCURRENCY-CONTROL") is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL


def test_field_lists_accept_csv_and_json() -> None:
    assert TableSettings(record_key_fields="a, b").record_key_fields == ("a", "b")  # type: ignore[arg-type]
    assert TableSettings(record_key_fields='["a", "b"]').record_key_fields == ("a", "b")  # type: ignore[arg-type]
    assert TableSettings(record_key_fields=["a.b"]).record_key_fields == ("a.b",)  # type: ignore[arg-type]
    for bad in (["a", "a"], [" a"], ["a,b"], '["a"'):
        with pytest.raises(ValidationError):
            TableSettings(record_key_fields=bad)  # type: ignore[arg-type]


def test_table_name_pattern() -> None:
    with pytest.raises(ValidationError):
        TableSettings(name="my table")
    assert TableSettings(name="trips_2024").name == "trips_2024"


def test_component_ref_shorthand_and_pattern() -> None:
    assert ComponentRef.model_validate("bloom") == ComponentRef(name="bloom")
    assert ComponentRef(name="acme-max-version", options={"a": [1, {"b": None}]}).options["a"] == [
        1,
        {"b": None},
    ]
    for bad in ("Bloom", "1bloom", "bloom_index", "org.apache.hudi.Foo", ""):
        with pytest.raises(ValidationError):
            ComponentRef(name=bad)
    with pytest.raises(ValidationError):
        ComponentRef.model_validate({"name": "x", "opts": {}})


def test_merger_mode_inference() -> None:
    assert MergerSettings().effective_mode(["ts"]) is RecordMergeMode.EVENT_TIME_ORDERING
    assert MergerSettings().effective_mode([]) is RecordMergeMode.COMMIT_TIME_ORDERING
    strategy = MergerSettings(strategy_id=UUID("ce9acb64-bde0-424c-9b91-f6ebba25356d"))
    assert strategy.effective_mode(["ts"]) is RecordMergeMode.COMMIT_TIME_ORDERING
    payload = MergerSettings(payload_class="org.apache.hudi.common.model.OverwriteWithLatestAvroPayload")
    assert payload.effective_mode(["ts"]) is RecordMergeMode.COMMIT_TIME_ORDERING
    custom = MergerSettings(payload_class="com.acme.MyPayload")
    assert custom.effective_mode(["ts"]) is RecordMergeMode.CUSTOM


def test_merger_lookup_name() -> None:
    # Built-in modes are looked up by the mode's name, which the merger serving it registers as an alias.
    assert MergerSettings().lookup_name(["ts"]) == "EVENT_TIME_ORDERING"
    assert MergerSettings().lookup_name([]) == "COMMIT_TIME_ORDERING"
    assert MergerSettings(name="acme-max-version").lookup_name([]) == "acme-max-version"
    uuid = UUID("12345678-1234-5678-1234-567812345678")
    assert MergerSettings(mode="CUSTOM", strategy_id=uuid).lookup_name([]) == str(uuid)  # type: ignore[arg-type]


def test_storage_backend_options_by_name_or_scheme() -> None:
    components = Components.from_settings(HudiSettings())
    storage = StorageSettings(backend="s3", options={"max_attempts": 3}, s3={"region": "eu-west-1"})  # type: ignore[arg-type]
    assert components.storage_spec("/tmp/t", storage).options == {"max_attempts": 3, "region": "eu-west-1"}
    inferred = StorageSettings(s3={"region": "eu-west-1"})  # type: ignore[arg-type]
    assert components.storage_spec("s3a://bucket/t", inferred).options == {"region": "eu-west-1"}
    assert components.storage_spec("file:///tmp/t", inferred).options == {}
    # Only fields the user set are passed, so the plugin's own defaults apply to the rest.
    assert components.storage_spec("/tmp/t", StorageSettings(backend="s3")).options == {}
    # The section comes from the backend's spec: the kernel names no backend.
    assert inferred.backend_options("s3") == {"region": "eu-west-1"}
    assert inferred.backend_options(None) == {}
    with pytest.raises(PluginError, match="no section 'gcs'"):
        inferred.backend_options("gcs")


def test_sections_are_frozen_and_forbid_extras() -> None:
    for model in Section.__subclasses__():
        assert model.model_config.get("frozen") is True
        assert model.model_config.get("extra") == "forbid"
        assert model.model_config.get("hide_input_in_errors") is True


def test_every_field_has_a_description() -> None:
    from hudi_framework.config import HudiSettings

    missing = []
    todo: list[type[BaseModel]] = [HudiSettings]
    while todo:
        model = todo.pop()
        for name, info in model.model_fields.items():
            if not info.description:
                missing.append(f"{model.__name__}.{name}")
            annotation = info.annotation
            if isinstance(annotation, type) and issubclass(annotation, Section):
                todo.append(annotation)
    assert missing == []
