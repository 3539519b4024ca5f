"""Fail-fast checks on unsafe concurrency settings."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hudi_framework import Components
from hudi_framework.config import HudiSettings
from hudi_framework.errors import ConfigError, UnsafeLockConfigError
from hudi_framework.lock import WriterTopology, check_lock_safety, topology_of_spark_master
from hudi_framework.vocabulary import FailedWritesPolicy

OCC = "optimistic_concurrency_control"


def _local(settings: HudiSettings) -> Callable[[], bool]:
    return Components.from_settings(settings).lock_is_process_local


def test_single_writer_is_never_checked() -> None:
    settings = HudiSettings(lock={"provider": "in-process"})
    check_lock_safety(settings, WriterTopology.MULTI_PROCESS, _local(settings))


def test_occ_with_in_process_lock_across_processes_fails_naming_both_keys() -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "hoodie.write.concurrency.mode": OCC,
            "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider",
        }
    )
    check_lock_safety(settings, WriterTopology.SINGLE_PROCESS, _local(settings))
    with pytest.raises(UnsafeLockConfigError) as info:
        check_lock_safety(settings, WriterTopology.MULTI_PROCESS, _local(settings))
    assert info.value.keys == ("hoodie.write.concurrency.mode", "hoodie.write.lock.provider")
    assert isinstance(info.value, ConfigError)
    assert "in-process" in str(info.value)


@pytest.mark.parametrize("provider", ["storage", "dynamodb"])
def test_occ_with_shared_lock_across_processes_is_fine(provider: str) -> None:
    settings = HudiSettings(write={"concurrency_mode": OCC}, lock={"provider": provider})
    check_lock_safety(settings, WriterTopology.MULTI_PROCESS, _local(settings))


def test_occ_without_lazy_cleaning_fails_naming_both_keys() -> None:
    settings = HudiSettings(write={"concurrency_mode": OCC}, lock={"provider": "storage"})
    # The settings model already rejects an explicit EAGER; the kernel check also guards settings
    # assembled without validation (model_copy), which is how a caller could bypass it.
    eager = settings.model_copy(
        update={"write": settings.write.model_copy(update={"failed_writes_policy": FailedWritesPolicy.EAGER})}
    )
    with pytest.raises(UnsafeLockConfigError) as info:
        check_lock_safety(eager, WriterTopology.SINGLE_PROCESS, _local(eager))
    assert info.value.keys == ("hoodie.write.concurrency.mode", "hoodie.clean.failed.writes.policy")


@pytest.mark.parametrize(
    ("master", "topology"),
    [
        ("local", WriterTopology.SINGLE_PROCESS),
        ("local[2]", WriterTopology.SINGLE_PROCESS),
        ("local[*]", WriterTopology.SINGLE_PROCESS),
        ("yarn", WriterTopology.MULTI_PROCESS),
        ("spark://host:7077", WriterTopology.MULTI_PROCESS),
        ("k8s://https://api:443", WriterTopology.MULTI_PROCESS),
    ],
)
def test_topology_of_spark_master(master: str, topology: WriterTopology) -> None:
    assert topology_of_spark_master(master) is topology
