"""``write.distributed.min.bytes``: when a staged ``format("hudi")`` write merges in executors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.spark.driver_session import attach_session, publish_handle
from hudi_framework.spark.options import DEFAULT_DISTRIBUTED_MIN_BYTES, DISTRIBUTED_MIN_BYTES_KEY, SourceOptions


def test_the_threshold_defaults_and_parses() -> None:
    assert SourceOptions.parse({"path": "/t"}).staged_merge_min_bytes == DEFAULT_DISTRIBUTED_MIN_BYTES
    assert SourceOptions.parse({"path": "/t", DISTRIBUTED_MIN_BYTES_KEY: "0"}).staged_merge_min_bytes == 0
    # A data source option, never a setting: nothing to resolve.
    assert SourceOptions.parse({"path": "/t", DISTRIBUTED_MIN_BYTES_KEY: " 1024 "}).resolved is None


@pytest.mark.parametrize("value", ["-1", "lots", "1.5", ""])
def test_a_bad_threshold_is_refused_by_name(value: str) -> None:
    with pytest.raises(InvalidConfigValueError) as raised:
        SourceOptions.parse({"path": "/t", DISTRIBUTED_MIN_BYTES_KEY: value})
    assert raised.value.key == DISTRIBUTED_MIN_BYTES_KEY


def test_only_batch_writes_take_the_threshold() -> None:
    options = SourceOptions.parse({"path": "/t", DISTRIBUTED_MIN_BYTES_KEY: "0"})
    options.refuse_streaming(batch_write=True)
    with pytest.raises(InvalidConfigValueError) as raised:
        options.refuse_streaming()  # reads and streaming queries: it would not act
    assert raised.value.key == DISTRIBUTED_MIN_BYTES_KEY
    SourceOptions.parse({"path": "/t"}).refuse_streaming()


def test_the_handle_file_is_the_owners_only(tmp_path: Path) -> None:
    params = SimpleNamespace(port=4242, auth_token="s3cret")
    context = SimpleNamespace(_gateway=SimpleNamespace(gateway_parameters=params), _temp_dir=str(tmp_path))
    handle = publish_handle(SimpleNamespace(sparkContext=context))  # type: ignore[arg-type]
    assert handle is not None
    assert "s3cret" not in handle  # the handle travels with the registration: a path only
    assert os.stat(handle).st_mode & 0o777 == 0o600
    assert json.loads(Path(handle).read_text()) == {"port": 4242, "secret": "s3cret"}


def test_no_gateway_no_handle_and_a_missing_handle_attaches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pyspark import SparkContext

    # As in a commit process: no SparkContext of its own (a test worker may hold the session's).
    monkeypatch.setattr(SparkContext, "_active_spark_context", None)
    assert publish_handle(SimpleNamespace(sparkContext=None)) is None  # type: ignore[arg-type]
    assert attach_session(str(tmp_path / "gone.json")) is None
