"""Hudi's vocabulary: every spelling of a name reads back as the same thing."""

from __future__ import annotations

import enum
import importlib
import pkgutil

import pytest

import hudi_framework
from hudi_framework.vocabulary import (
    BUILTIN_KEY_GENERATORS,
    COMMIT_TIME_STRATEGY_ID,
    DEPRECATED_PAYLOAD_MODES,
    EVENT_TIME_STRATEGY_ID,
    KEY_GENERATOR_PACKAGE,
    KEY_GENERATORS,
    PAYLOAD_PACKAGE,
    BuiltinKeyGenerator,
    RecordMergeMode,
    TableType,
    TableVersion,
    TimelineTimezone,
    WriteOperation,
    WriteOperationType,
    default_payload_class,
    deprecated_payload_mode,
    key_generator_class,
    key_generator_component,
    key_generator_type,
    key_generator_type_of_class,
    mode_of_strategy,
    operation_type,
    payload_merge_mode,
    strategy_of_mode,
)


@pytest.mark.parametrize(
    ("text", "member"),
    [
        ("cow", TableType.COPY_ON_WRITE),
        ("MOR", TableType.MERGE_ON_READ),
        ("merge-on-read", TableType.MERGE_ON_READ),
        ("utc", TimelineTimezone.UTC),
        ("event_time_ordering", RecordMergeMode.EVENT_TIME_ORDERING),
        ("9", TableVersion.NINE),
        ("EIGHT", TableVersion.EIGHT),
    ],
)
def test_enums_parse_as_apache_hudi_does(text: str, member: object) -> None:
    assert type(member)(text) is member


@pytest.mark.parametrize("known", BUILTIN_KEY_GENERATORS, ids=lambda k: k.component)
def test_every_key_generator_spelling_means_the_same_generator(known: BuiltinKeyGenerator) -> None:
    type_name, component, classes = known
    spellings = [type_name, f"{type_name}_AVRO", component, *classes, *(KEY_GENERATOR_PACKAGE + c for c in classes)]
    assert {key_generator_component(s) for s in spellings} == {component}
    assert {key_generator_type(s) for s in spellings} == {type_name}
    assert {key_generator_type_of_class(KEY_GENERATOR_PACKAGE + c) for c in classes} == {type_name}
    assert key_generator_class(type_name) == KEY_GENERATOR_PACKAGE + classes[0]
    assert KEY_GENERATORS.parse(KEY_GENERATORS.render(component) or "") == component


def test_a_plugin_key_generator_keeps_its_name() -> None:
    assert key_generator_component("acme-keys") == "acme-keys"
    assert key_generator_type("acme-keys") == "ACME_KEYS"
    assert key_generator_type_of_class("com.acme.AcmeKeyGenerator") == "ACMEKEYGENERATOR"


def test_payload_modes_before_and_at_version_9() -> None:
    # The three classes that mean a built-in mode mean the same one at version 9.
    for simple in ("DefaultHoodieRecordPayload", "EventTimeAvroPayload", "OverwriteWithLatestAvroPayload"):
        assert payload_merge_mode(PAYLOAD_PACKAGE + simple) is DEPRECATED_PAYLOAD_MODES[simple]
    assert payload_merge_mode("PartialUpdateAvroPayload") is RecordMergeMode.CUSTOM
    assert deprecated_payload_mode("PartialUpdateAvroPayload") is RecordMergeMode.EVENT_TIME_ORDERING
    assert deprecated_payload_mode("com.acme.Payload") is None
    assert len(DEPRECATED_PAYLOAD_MODES) == 8
    for mode in (RecordMergeMode.EVENT_TIME_ORDERING, RecordMergeMode.COMMIT_TIME_ORDERING):
        payload = default_payload_class(mode)
        assert payload is not None
        assert payload_merge_mode(payload) is mode
    assert default_payload_class(RecordMergeMode.CUSTOM) is None


def test_strategy_ids_and_modes() -> None:
    assert mode_of_strategy(EVENT_TIME_STRATEGY_ID.upper()) is RecordMergeMode.EVENT_TIME_ORDERING
    assert mode_of_strategy(COMMIT_TIME_STRATEGY_ID) is RecordMergeMode.COMMIT_TIME_ORDERING
    assert mode_of_strategy(strategy_of_mode(RecordMergeMode.CUSTOM)) is None
    assert mode_of_strategy(None) is None


def test_every_write_operation_has_a_commit_metadata_type() -> None:
    assert {operation_type(op) for op in WriteOperation} <= set(WriteOperationType)
    assert operation_type(WriteOperation.BULK_INSERT) is WriteOperationType.BULK_INSERT


def _kernel_enums() -> list[type[enum.Enum]]:
    found: dict[str, type[enum.Enum]] = {}
    for info in pkgutil.walk_packages(hudi_framework.__path__, "hudi_framework."):
        if info.name.startswith("hudi_framework.spark"):
            continue  # needs pyspark; it defines no enums of its own
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, enum.Enum) and value.__module__ == info.name:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_no_enum_outside_the_vocabulary_repeats_hudi_names() -> None:
    # An enum whose values are all values of a vocabulary enum is a second definition of it (as table
    # config's MergeMode and job batches' BatchOperation were).
    vocabulary = [e for e in _kernel_enums() if e.__module__.startswith("hudi_framework.vocabulary.")]
    assert {e.__name__ for e in vocabulary} >= {"TableType", "RecordMergeMode", "TimelineTimezone", "WriteOperation"}
    repeats = [
        f"{other.__module__}.{other.__qualname__} repeats {hudi.__module__}.{hudi.__qualname__}"
        for other in _kernel_enums()
        if not other.__module__.startswith("hudi_framework.vocabulary.")
        for hudi in vocabulary
        if {str(m.value) for m in other} <= {str(m.value) for m in hudi}
    ]
    assert repeats == []
