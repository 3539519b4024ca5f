"""Loading ``HudiSettings``: sources, precedence, unknown keys and bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.config import ConfigFileError, HudiSettings, InvalidConfigValueError
from hudi_framework.errors import ConfigError, UnknownConfigKeyError
from hudi_framework.vocabulary import FailedWritesPolicy, TableType, WriteOperation

BASE_TOML = """
[table]
name = "from_file"
type = "COPY_ON_WRITE"
record_key_fields = ["id"]

[write]
operation = "insert"
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "job.toml"
    path.write_text(BASE_TOML)
    return path


def test_direct_construction_reads_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    assert HudiSettings().table.name is None
    assert HudiSettings.load(env=False).table.name is None


def test_load_without_arguments_gives_defaults() -> None:
    assert HudiSettings.load() == HudiSettings()


def test_load_never_reads_the_home_or_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("hudi.toml", "hudi.yaml", "config.toml", ".env", "hudi-defaults.conf"):
        (tmp_path / name).write_text("[table]\nname = 'sneaky'\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert HudiSettings.load().table.name is None


def test_file_values_load(config_file: Path) -> None:
    settings = HudiSettings.load(config_file)
    assert settings.table.name == "from_file"
    assert settings.write.operation is WriteOperation.INSERT


def test_env_overrides_file(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    monkeypatch.setenv("HUDI_WRITE__OPERATION", "bulk_insert")
    settings = HudiSettings.load(config_file)
    assert settings.table.name == "from_env"
    assert settings.write.operation is WriteOperation.BULK_INSERT
    assert settings.table.record_key_fields == ("id",)  # untouched file values stay


def test_env_is_ignored_when_disabled(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    assert HudiSettings.load(config_file, env=False).table.name == "from_file"


def test_env_names_are_case_insensitive_and_nested(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("hudi_table__type", "mor")
    monkeypatch.setenv("HUDI_TABLE__KEYGEN_TIMESTAMP__OUTPUT_TIMEZONE", "Europe/Paris")
    monkeypatch.setenv("HUDI_TABLE__RECORD_KEY_FIELDS", "a,b")
    monkeypatch.setenv("HUDI_TABLE__KEY_GENERATOR", "complex")
    monkeypatch.setenv("HUDI_LOCK__OPTIONS__TABLE", "locks")
    monkeypatch.setenv("HUDI_PLUGINS__DISABLE", '["index-bloom"]')
    settings = HudiSettings.load()
    assert settings.table.type is TableType.MERGE_ON_READ
    assert settings.table.keygen_timestamp.output_timezone == "Europe/Paris"
    assert settings.table.record_key_fields == ("a", "b")
    assert settings.table.key_generator is not None
    assert settings.table.key_generator.name == "complex"
    assert settings.lock.options == {"table": "locks"}
    assert settings.plugins.disable == ("index-bloom",)


def test_hoodie_options_override_env(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    settings = HudiSettings.load(config_file, hoodie_options={"hoodie.table.name": "from_hoodie"})
    assert settings.table.name == "from_hoodie"


def test_overrides_win_over_everything(config_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    settings = HudiSettings.load(
        config_file,
        hoodie_options={"hoodie.table.name": "from_hoodie"},
        overrides={"table": {"name": "from_override"}, "write.operation": "delete"},
    )
    assert settings.table.name == "from_override"
    assert settings.write.operation is WriteOperation.DELETE


def test_component_shorthand_and_nested_form_merge(tmp_path: Path) -> None:
    path = tmp_path / "kg.toml"
    path.write_text('[table.key_generator]\nname = "timestamp"\noptions = { strict = true }\n')
    settings = HudiSettings.load(
        path, hoodie_options={"hoodie.datasource.write.keygenerator.type": "TIMESTAMP"}, env=False
    )
    assert settings.table.key_generator is not None
    assert settings.table.key_generator.name == "timestamp"
    assert settings.table.key_generator.options == {"strict": True}


def test_hoodie_keys_in_the_file_sit_below_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "h.yaml"
    path.write_text("hoodie.table.name: in_file\npath: /tmp/t\n")
    monkeypatch.setenv("HUDI_TABLE__NAME", "from_env")
    settings = HudiSettings.load(path)
    assert settings.table.name == "from_env"
    assert settings.table.base_path == "/tmp/t"


def test_two_spellings_in_one_file_must_agree(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('"hoodie.table.name" = "a"\n[table]\nname = "b"\n')
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(path, env=False)
    assert info.value.key == "table.name"
    assert "hoodie.table.name" in str(info.value)
    path.write_text('"hoodie.table.type" = "mor"\n[table]\ntype = "MERGE_ON_READ"\n')
    assert HudiSettings.load(path, env=False).table.type is TableType.MERGE_ON_READ


# ---------------------------------------------------------------------------------------- unknown keys
def test_unknown_field_in_file_suggests(tmp_path: Path) -> None:
    path = tmp_path / "typo.toml"
    path.write_text('[write]\noperaton = "insert"\n')
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.load(path, env=False)
    assert info.value.key == "write.operaton"
    assert info.value.suggestions == ("write.operation",)
    assert "did you mean 'write.operation'" in str(info.value)
    assert str(info.value).endswith(f"(in {path})")
    assert info.value.source == str(path)


def test_unknown_section_suggests(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text("tabel:\n  name: x\n")
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.load(path, env=False)
    assert info.value.key == "tabel"
    assert info.value.suggestions == ("table",)


def test_unknown_nested_field_suggests() -> None:
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.load(overrides={"services": {"compaction": {"max_delta_comits": 3}}}, env=False)
    assert info.value.key == "services.compaction.max_delta_comits"
    assert "services.compaction.max_delta_commits" in info.value.suggestions


def test_unknown_env_field_suggests_env_spelling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE__NMAE", "x")
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.load()
    assert info.value.key == "HUDI_TABLE__NMAE"
    assert info.value.suggestions == ("HUDI_TABLE__NAME",)


def test_unknown_env_section_suggests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABEL__NAME", "x")
    with pytest.raises(UnknownConfigKeyError) as info:
        HudiSettings.load()
    assert info.value.suggestions == ("HUDI_TABLE__NAME",)


def test_unrelated_hudi_env_vars_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # Apache Hudi reads HUDI_CONF_DIR itself; a variable without "__" is not a nested setting.
    monkeypatch.setenv("HUDI_CONF_DIR", "/etc/hudi")
    assert HudiSettings.load() == HudiSettings()


def test_underscore_keywords_are_unknown_keys() -> None:
    with pytest.raises(UnknownConfigKeyError):
        HudiSettings.load(overrides={"_env_file": ".env"}, env=False)


# ---------------------------------------------------------------------------------------- bad values
def test_bad_file_value_names_the_dotted_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[table]\ntype = "COPY_ON_READ"\n')
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(path, env=False)
    assert info.value.key == "table.type"
    assert "COPY_ON_WRITE" in info.value.reason


def test_bad_list_item_names_its_position(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[table]\nrecord_key_fields = ["id", ""]\n')
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(path, env=False)
    assert info.value.key == "table.record_key_fields[1]"


def test_bad_env_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_SERVICES__CLEAN__COMMITS_RETAINED", "lots")
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load()
    assert info.value.key == "HUDI_SERVICES__CLEAN__COMMITS_RETAINED"


def test_bad_env_json_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_TABLE", "{not json")
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load()
    assert info.value.key == "HUDI_TABLE"


def test_every_bad_value_is_listed() -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(overrides={"write.operation": "nope", "lock.num_retries": -1}, env=False)
    assert {key for key, _ in info.value.issues} == {"write.operation", "lock.num_retries"}


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"merger.mode": "EVENT_TIME_ORDERING"}, "merger.mode"),
        (
            {"write.concurrency_mode": "occ", "write.failed_writes_policy": "EAGER"},
            "write.failed_writes_policy",
        ),
        ({"read.query_type": "incremental"}, "read.begin_instant"),
        ({"read": {"begin_instant": "20240102", "end_instant": "20240101"}}, "read.end_instant"),
        ({"table": {"version": 6, "ordering_fields": ["a", "b"]}}, "table.ordering_fields"),
        ({"merger": {"mode": "CUSTOM"}}, "merger.mode"),
        (
            {
                "merger": {
                    "mode": "COMMIT_TIME_ORDERING",
                    "strategy_id": "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
                }
            },
            "merger.strategy_id",
        ),
        ({"write": {"small_file_limit_bytes": 10, "max_file_size_bytes": 5}}, "write.small_file_limit_bytes"),
        (
            {"services.compaction": {"inline": True, "schedule_inline": True}},
            "services.compaction.schedule_inline",
        ),
        ({"storage.options": {"secret_access_key": "x"}}, "storage.options.secret_access_key"),
        ({"lock.options": {"password": "x"}}, "lock.options.password"),
        ({"storage": {"options": {"region": "a"}, "s3": {"region": "b"}}}, "storage.options.region"),
    ],
)
def test_cross_field_errors_name_a_field(overrides: dict[str, object], key: str) -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load(overrides=overrides, env=False)
    assert info.value.key == key


def test_lazy_is_inferred_under_occ() -> None:
    settings = HudiSettings.load(overrides={"write.concurrency_mode": "OPTIMISTIC_CONCURRENCY_CONTROL"}, env=False)
    assert settings.write.failed_writes_policy is None
    assert settings.write.effective_failed_writes_policy is FailedWritesPolicy.LAZY
    assert HudiSettings().write.effective_failed_writes_policy is FailedWritesPolicy.EAGER


def test_direct_construction_raises_config_errors() -> None:
    expected = r"^unknown option 'write.operaton'; did you mean 'write.operation'\?$"
    with pytest.raises(UnknownConfigKeyError, match=expected):
        HudiSettings(write={"operaton": "insert"})  # type: ignore[arg-type]
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings(write={"operation": "upsrt"})  # type: ignore[arg-type]
    assert info.value.key == "write.operation"
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.model_validate({"table": {"record_key_fields": 3}})
    assert (info.value.key, info.value.reason) == ("table.record_key_fields", "Input should be a list")


def test_a_bad_env_value_names_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_WRITE__OPERATION", "upsrt")
    with pytest.raises(InvalidConfigValueError) as info:
        HudiSettings.load()
    assert info.value.key == "HUDI_WRITE__OPERATION"
    assert info.value.source == "environment"
    assert str(info.value).endswith("(in environment)")


def test_errors_are_config_errors() -> None:
    assert issubclass(InvalidConfigValueError, ConfigError)
    assert issubclass(ConfigFileError, ConfigError)
    assert issubclass(UnknownConfigKeyError, ConfigError)


def test_settings_are_frozen() -> None:
    settings = HudiSettings()
    with pytest.raises(ValueError, match="frozen"):
        settings.table.name = "x"  # type: ignore[misc]
