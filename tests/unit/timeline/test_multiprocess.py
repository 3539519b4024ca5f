from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.timeline import Timeline
from hudi_storage_local.backend import LocalStorageBackend
from tests.unit.timeline._mp_worker import create_instants

PROCESSES = 4
PER_PROCESS = 12


@pytest.mark.parametrize("layout", [1, 2])
def test_concurrent_processes_get_unique_increasing_instants(tmp_path: Path, layout: int) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(PROCESSES) as pool:
        results = pool.starmap(create_instants, [(str(tmp_path), layout, PER_PROCESS)] * PROCESSES)
    all_times = [t for seq in results for t, _ in seq]
    assert len(all_times) == PROCESSES * PER_PROCESS
    assert len(set(all_times)) == len(all_times)
    for seq in results:
        times = [t for t, _ in seq]
        assert times == sorted(times)
        assert len(set(times)) == len(times)
        if layout == 2:
            assert all(c is not None and c > t for t, c in seq)
    timeline = Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=layout)
    assert sorted(all_times) == [i.requested_time for i in timeline]
    assert all(i.state is State.COMPLETED and i.action is Action.COMMIT for i in timeline)
    # Writers that lost a race removed their files: three files per instant, nothing else.
    directory = tmp_path / timeline.directory
    assert len([p for p in directory.iterdir() if p.is_file()]) == 3 * len(all_times)
