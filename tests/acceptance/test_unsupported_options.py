"""No silent settings: an Apache Hudi option whose feature does not exist here yet is refused.

Each option is given the way users give it (a ``hoodie.*`` key, a settings field path in a config
file, ``format("hudi")`` options, ``hudi-fw --config``) and must fail validation with an
:class:`UnsupportedOptionError` that names the option as written, says it is not supported yet
and, where the roadmap has it, names the roadmap item. The one value whose behaviour we already
have (Apache Hudi's default, or what it falls back to) is accepted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.config.not_yet import ARCHIVAL, METADATA_TABLE
from hudi_framework.errors import ConfigError, UnsupportedOptionError
from hudi_framework.spark.options import SourceOptions

#: Apache Hudi's update strategy that lets writes into file groups under pending clustering.
ALLOW_UPDATES = "org.apache.hudi.client.clustering.update.strategy.SparkAllowUpdateStrategy"

#: (Apache Hudi key, value, roadmap item or None).
HOODIE_OPTIONS: list[tuple[str, str, str | None]] = [
    ("hoodie.clustering.updates.strategy", ALLOW_UPDATES, None),
    ("hoodie.archive.async", "true", ARCHIVAL),
    ("hoodie.index.type", "RECORD_LEVEL_INDEX", METADATA_TABLE),
    ("hoodie.index.type", "INMEMORY", None),
    (
        "hoodie.compaction.strategy",
        "org.apache.hudi.table.action.compact.strategy.BoundedPartitionAwareCompactionStrategy",
        None,
    ),
    ("hoodie.compaction.strategy", "UnBoundedPartitionAwareCompactionStrategy", None),
    ("hoodie.write.markers.type", "TIMELINE_SERVER_BASED", None),
    ("hoodie.copyonwrite.insert.split.size", "500000", None),
    ("hoodie.combine.before.delete", "true", None),
    ("hoodie.datasource.write.drop.partition.columns", "true", None),
    ("hoodie.metadata.record.level.index.enable", "true", METADATA_TABLE),
    ("hoodie.metadata.record.level.index.enable", "true", METADATA_TABLE),
    ("hoodie.clean.trigger.strategy", "NUM_HOURS", None),
    ("hoodie.schema.on.read.enable", "true", None),
    ("hoodie.datasource.write.reconcile.schema", "true", None),
    ("hoodie.datasource.write.schema.allow.auto.evolution.column.drop", "true", None),
]

#: The values whose behaviour we have: accepted.
HONEST: list[tuple[str, str]] = [
    ("hoodie.clustering.inline", "false"),
    ("hoodie.clustering.schedule.inline", "false"),
    ("hoodie.clustering.async.enabled", "false"),
    ("hoodie.archive.automatic", "false"),
    ("hoodie.archive.automatic", "true"),
    ("hoodie.archive.async", "false"),
    ("hoodie.write.markers.type", "DIRECT"),
    ("hoodie.combine.before.delete", "false"),
    ("hoodie.schema.on.read.enable", "false"),
    ("hoodie.datasource.write.reconcile.schema", "false"),
    ("hoodie.datasource.write.drop.partition.columns", "false"),
    ("hoodie.metadata.enable", "false"),
    ("hoodie.metadata.enable", "true"),
    ("hoodie.metadata.index.column.stats.enable", "false"),
    ("hoodie.metadata.index.column.stats.enable", "true"),
    ("hoodie.metadata.index.partition.stats.enable", "true"),
    ("hoodie.clean.trigger.strategy", "NUM_COMMITS"),
]

#: (settings field path, value) as a config file or ``HudiSettings(...)`` gives them.
FIELDS: list[tuple[str, Any, str | None]] = [
    ("services.clustering.update_strategy", "allow", None),
    ("services.archive.async_enabled", True, ARCHIVAL),
    ("index.type", "partitioned-record-level", METADATA_TABLE),
    ("index.type", "in-memory", None),
    ("services.compaction.strategy", "bounded-partition-aware", None),
    ("services.compaction.strategy", {"name": "unbounded-partition-aware"}, None),
    ("write.insert_split_size", 100, None),
    ("write.combine_before_delete", True, None),
    ("table.drop_partition_columns", True, None),
]


def _check(error: UnsupportedOptionError, key: str, roadmap: str | None) -> None:
    assert isinstance(error, ConfigError)
    assert error.key == key
    assert f"invalid value for {key!r}: not supported yet: " in str(error)
    assert error.roadmap == roadmap
    if roadmap is not None:
        assert f"(roadmap: {roadmap})" in str(error)


@pytest.mark.parametrize(("key", "value", "roadmap"), HOODIE_OPTIONS, ids=[f"{k}={v}" for k, v, _ in HOODIE_OPTIONS])
def test_a_hoodie_option_without_its_feature_is_refused(key: str, value: str, roadmap: str | None) -> None:
    with pytest.raises(UnsupportedOptionError) as caught:
        HudiSettings.from_hoodie_options({key: value}, env=False)
    _check(caught.value, key, roadmap)


@pytest.mark.parametrize(("key", "value", "roadmap"), HOODIE_OPTIONS[:3] + HOODIE_OPTIONS[5:6] + HOODIE_OPTIONS[9:10])
def test_spark_options_are_refused_alike(key: str, value: str, roadmap: str | None) -> None:
    options = {"path": "/tmp/t", "hoodie.table.name": "t", key: value}
    with pytest.raises(UnsupportedOptionError) as caught:
        SourceOptions.parse(options)
    _check(caught.value, key, roadmap)


@pytest.mark.parametrize(("key", "value"), HONEST, ids=[f"{k}={v}" for k, v in HONEST])
def test_the_value_whose_behaviour_we_have_is_accepted(key: str, value: str) -> None:
    HudiSettings.from_hoodie_options({key: value}, env=False)


@pytest.mark.parametrize(("path", "value", "roadmap"), FIELDS, ids=[f"{p}={v}" for p, v, _ in FIELDS])
def test_a_settings_field_without_its_feature_is_refused(path: str, value: Any, roadmap: str | None) -> None:
    with pytest.raises(UnsupportedOptionError) as caught:
        HudiSettings.load(overrides={path: value}, env=False)
    _check(caught.value, path, roadmap)
    section, _, rest = path.partition(".")
    nested: dict[str, Any] = {}
    cursor = nested
    parts = rest.split(".")
    for part in parts[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[parts[-1]] = value
    with pytest.raises(UnsupportedOptionError) as direct:
        HudiSettings(**{section: nested})
    _check(direct.value, path, roadmap)


def test_a_config_file_names_the_option_and_the_file(tmp_path: Path) -> None:
    config = tmp_path / "job.toml"
    config.write_text('[services.clustering]\nupdate_strategy = "allow"\n')
    with pytest.raises(UnsupportedOptionError) as caught:
        HudiSettings.load(config, env=False)
    _check(caught.value, "services.clustering.update_strategy", None)
    assert caught.value.source == str(config)


def test_the_environment_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_SERVICES__ARCHIVE__ASYNC_ENABLED", "true")
    with pytest.raises(UnsupportedOptionError) as caught:
        HudiSettings.load()
    _check(caught.value, "HUDI_SERVICES__ARCHIVE__ASYNC_ENABLED", ARCHIVAL)


def test_defaults_and_their_json_round_trip_validate() -> None:
    """Spark executors get the settings as JSON: every field explicit, the unsupported ones too."""
    settings = HudiSettings.load(env=False)
    assert HudiSettings.model_validate_json(settings.model_dump_json()) == settings
    assert settings.services.archive.automatic
    assert not settings.services.clustering.inline
    assert (settings.services.archive.min_commits, settings.services.archive.max_commits) == (20, 30)


def test_the_cli_refuses_with_one_line_and_status_2(tmp_path: Path) -> None:
    config = tmp_path / "job.toml"
    config.write_text(
        f'"hoodie.table.name" = "t"\n"path" = "{tmp_path / "t"}"\n'
        '"hoodie.datasource.write.recordkey.field" = "id"\n"hoodie.clustering.updates.strategy" = "allow"\n'
    )
    proc = subprocess.run(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()",
         "init", "--config", str(config), "--path", str(tmp_path / "t"), "--schema", "id:string,ts:long"],
        capture_output=True, text=True, check=False, env={**os.environ, "COLUMNS": "40"},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(
        "error: UnsupportedOptionError: invalid value for 'hoodie.clustering.updates.strategy': not supported yet: "
    ), proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("hoodie.datasource.read.incr.fallback.fulltablescan.enable", "false", "incremental_fallback_full_scan"),
        ("hoodie.metadata.enable", "false", "metadata_enable"),
    ],
)
def test_read_only_options_reach_spark_reads_and_act(key: str, value: str, field: str) -> None:
    """Options reads act on are taken by a Spark read's options, never refused by the settings."""
    from hudi_framework.read.reader import build_options

    parsed = SourceOptions.parse({"path": "/tmp/t", key: value}, read=True)
    assert getattr(build_options(options=parsed.hoodie), field) is False


def test_a_write_refuses_the_incremental_fallback_option_it_cannot_act_on() -> None:
    with pytest.raises(ConfigError):
        SourceOptions.parse(
            {
                "path": "/tmp/t",
                "hoodie.table.name": "t",
                "hoodie.datasource.read.incr.fallback.fulltablescan.enable": "false",
            }
        )
