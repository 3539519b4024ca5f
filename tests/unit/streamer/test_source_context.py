"""The streamer's source context opens each URI's storage with the settings meant for its backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import PluginConfigError
from hudi_framework.runtime.sources import SettingsSourceContext


def test_generic_storage_options_of_a_remote_table_do_not_reach_a_local_landing_dir(tmp_path: Path) -> None:
    # storage.options belong to the table's backend (S3 here); a local landing directory read by the
    # same job must open with the local backend's own defaults, not fail on the S3 options.
    settings = HudiSettings.load(
        overrides={
            "table.base_path": "s3://bucket/table",
            "storage.options": {"max_attempts": 2},
            "storage.s3.region": "us-east-1",
        },
        env=False,
    )
    (tmp_path / "a.json").write_text('{"id": 1}\n')
    backend = SettingsSourceContext(settings).storage(str(tmp_path))
    assert [f.name for f in backend.list("")] == ["a.json"]


def test_a_landing_dir_on_the_table_s_backend_gets_the_table_s_options(tmp_path: Path) -> None:
    settings = HudiSettings.load(
        overrides={"table.base_path": str(tmp_path / "t"), "storage.options": {"not_an_option": 1}}, env=False
    )
    with pytest.raises(PluginConfigError, match="not_an_option"):
        SettingsSourceContext(settings).storage(str(tmp_path))
