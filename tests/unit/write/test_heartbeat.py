"""Write heartbeats: refreshed while a write runs, deleted at commit and abort, expiry by misses."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant_time import InstantTimeGenerator, instant_time_to_epoch_ms
from hudi_framework.vocabulary import TimelineTimezone
from hudi_framework.write import client as client_module
from hudi_framework.write.client import WriteClient
from hudi_framework.write.heartbeat import (
    Heartbeat,
    HeartbeatPolicy,
    heartbeat_key,
    is_heartbeat_expired,
    last_heartbeat_ms,
)
from hudi_framework.write.target_task import write_target


def _table(path: Path) -> HudiTable:
    config = new_table_config(
        "t", version=8, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    return HudiTable.create(str(path), config)


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf"] * len(ids), "ts": [ts] * len(ids)})


def test_heartbeat_beats_until_stopped(tmp_path: Path) -> None:
    storage = _table(tmp_path).storage
    beat = Heartbeat(storage, "20250101000000000", HeartbeatPolicy(interval_ms=30)).start()
    assert beat.running
    first = last_heartbeat_ms(storage, "20250101000000000")
    assert first is not None
    deadline = time.monotonic() + 5
    while (last_heartbeat_ms(storage, "20250101000000000") or 0) <= first and time.monotonic() < deadline:
        time.sleep(0.01)
    assert (last_heartbeat_ms(storage, "20250101000000000") or 0) > first, "the daemon thread refreshes the beat"
    beat.stop()
    assert not beat.running
    assert not (tmp_path / heartbeat_key("20250101000000000")).exists()
    beat.stop()  # idempotent


def test_expiry_after_tolerable_misses(tmp_path: Path) -> None:
    storage = _table(tmp_path).storage
    policy = HeartbeatPolicy(interval_ms=1000, tolerable_misses=2)
    beat = Heartbeat(storage, "20250101000000000", policy)
    beat.beat()
    last = last_heartbeat_ms(storage, "20250101000000000")
    assert last is not None
    assert not is_heartbeat_expired(storage, "20250101000000000", policy, now_ms=last + 1999)
    assert is_heartbeat_expired(storage, "20250101000000000", policy, now_ms=last + 2001)


def test_missing_heartbeat_is_judged_by_requested_time(tmp_path: Path) -> None:
    storage = _table(tmp_path).storage
    policy = HeartbeatPolicy(interval_ms=1000, tolerable_misses=2)
    fresh = InstantTimeGenerator(TimelineTimezone.LOCAL).next()
    assert not is_heartbeat_expired(storage, fresh, policy)
    now = instant_time_to_epoch_ms(fresh, TimelineTimezone.LOCAL)
    assert is_heartbeat_expired(storage, fresh, policy, now_ms=now + 2001)
    assert is_heartbeat_expired(storage, "20200101000000000", policy)


@pytest.mark.parametrize("fail", [False, True], ids=["commit", "abort"])
def test_write_keeps_a_heartbeat_until_it_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: bool) -> None:
    table = _table(tmp_path)
    settings = HudiSettings(write={"heartbeat_interval_ms": 20})
    client = WriteClient(table, settings)
    seen: list[bool] = []

    def observing(*args: Any, **kwargs: Any) -> Any:
        ctx = args[2]
        seen.append((tmp_path / heartbeat_key(ctx.instant)).exists())
        if fail:
            raise RuntimeError("injected")
        return write_target(*args, **kwargs)

    monkeypatch.setattr(client_module, "write_target", observing)
    if fail:
        with pytest.raises(RuntimeError, match="injected"):
            client.insert(_batch(["a"], 1))
    else:
        client.insert(_batch(["a"], 1))
    assert seen == [True]
    assert not list((tmp_path / ".hoodie" / ".heartbeat").glob("*"))
