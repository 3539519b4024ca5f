"""The randomized fault campaign (see :mod:`tests.faults.campaign`): nothing lost, nothing silently wrong.

Three campaigns, each a seeded list of trials spread round-robin over the scenarios (insert,
upsert, delete, bulk_insert, compaction, clean, rollback of the latest commit, rollback of a failed
write; copy-on-write and merge-on-read; table versions 6 and 9; the S3 campaigns of the default
run take one layout per operation, and four of the operations unless ``HUDI_TEST_S3=full``):

* ``kill-local``: SIGKILL at a random storage call, tables on local disk;
* ``kill-s3``: SIGKILL at a random botocore call (before it, or after S3 applied it), on moto S3;
* ``s3-faults``: every botocore call fails with a probability of 5-10 % (error before apply, error
  after apply, lost response), on moto S3.

Each scenario prepared also runs once without a fault (the ``control-*`` trials). Environment:

* ``HUDI_FAULT_TRIALS=N``: trials per campaign (default: 30 on local disk, one per scenario; 4 per S3
  campaign, over four operations, or 8 and 10 over every operation with ``HUDI_TEST_S3=full``);
* ``HUDI_FAULT_SEED=S``: the campaign seed (default fixed; ``random`` draws one, printed in failures);
* ``HUDI_FAULT_REPLAY=<campaign>/<scenario>/<trial seed>``: run just that trial, as printed by a failure.
"""

from __future__ import annotations

import logging
import os
import random
import uuid
from pathlib import Path
from typing import Final

import pytest

from tests.faults.campaign.report import TrialResult, record
from tests.faults.campaign.scenarios import SERVICE_OPS, WRITE_OPS, Scenario, all_scenarios, scenario_named
from tests.faults.campaign.stores import LocalStore, S3Store
from tests.faults.campaign.trials import ScenarioPool, run_trial
from tests.faults.s3_faults import admin_client
from tests.s3_subset import full_s3

#: Trials per campaign in the default run: one kill per local scenario; on S3 one trial of each
#: campaign per operation drawn (two write operations and two services, see ``_plan``).
DEFAULT_TRIALS: Final = {"kill-local": 30, "kill-s3": 4, "s3-faults": 4}
#: Trials of the S3 campaigns with ``HUDI_TEST_S3=full`` (every operation, on one layout each).
FULL_S3_TRIALS: Final = {"kill-s3": 8, "s3-faults": 10}
#: The default campaign seed (fixed: the default run is the same every time).
DEFAULT_SEED: Final = 1717
#: The campaign whose store a control trial ran on.
_CONTROL_OF: Final = {"control-local": "kill-local", "control-s3": "kill-s3"}


_SEED = pytest.StashKey[int]()


def _seed(config: pytest.Config) -> int:
    """The campaign seed, drawn once per session for ``HUDI_FAULT_SEED=random``."""
    if _SEED not in config.stash:
        raw = os.environ.get("HUDI_FAULT_SEED", "").strip()
        drawn = random.SystemRandom().randrange(1, 2**31) if raw == "random" else None
        config.stash[_SEED] = drawn or (int(raw) if raw else DEFAULT_SEED)
    return config.stash[_SEED]


def _plan(campaign: str, seed: int) -> list[tuple[Scenario, int | None]]:
    """The campaign's trials: (scenario, trial seed), round-robin over a seeded order of scenarios.

    A replayed control trial (the dry run) is the scenario's preparation alone (seed None).
    """
    replay = os.environ.get("HUDI_FAULT_REPLAY", "").strip()
    if replay:
        name, scenario, trial_seed = replay.split("/")
        if _CONTROL_OF.get(name, name) != campaign:
            return []
        return [(scenario_named(scenario), None if name in _CONTROL_OF else int(trial_seed))]
    raw = os.environ.get("HUDI_FAULT_TRIALS", "").strip()
    order = all_scenarios()
    s3 = campaign != "kill-local"
    if not raw and s3:
        # Preparing a scenario on S3 takes seconds: the default run takes one layout per operation,
        # and of the operations two writes and two services (every one with HUDI_TEST_S3=full).
        # Both S3 campaigns draw the same scenarios, so each is prepared once.
        pool = random.Random(f"{seed}/s3-scenarios")
        ops: tuple[str, ...] = (*WRITE_OPS, *SERVICE_OPS)
        if not full_s3():
            ops = (*pool.sample(WRITE_OPS, 2), *pool.sample(SERVICE_OPS, 2))
        order = [pool.choice([s for s in order if s.op == op]) for op in ops]
    rng = random.Random(f"{seed}/{campaign}")
    rng.shuffle(order)
    count = int(raw) if raw else (FULL_S3_TRIALS if s3 and full_s3() else DEFAULT_TRIALS)[campaign]
    return [(order[i % len(order)], rng.randrange(1, 2**31)) for i in range(count)]


def _run(campaign: str, pool: ScenarioPool, config: pytest.Config) -> None:
    seed = _seed(config)
    plan = _plan(campaign, seed)
    if not plan:
        pytest.skip(f"HUDI_FAULT_REPLAY names another campaign than {campaign}")
    results: list[TrialResult] = []
    for scenario, trial_seed in plan:
        ready, new = pool.get(scenario)
        if new:
            results.append(ready.control)
        if ready.usable and trial_seed is not None:
            results.append(run_trial(ready, campaign, trial_seed))
    record(config, results)
    trials = [r for r in results if r.campaign == campaign]
    # A campaign whose faults stopped landing (a hook no longer reached) would pass without testing.
    assert sum(bool(r.landed) for r in trials) * 2 >= len(trials), f"faults landed in too few {campaign} trials"
    failed = [r for r in results if not r.passed]
    header = (
        f"{len(failed)} of {len(results)} trials failed (campaign seed {seed}); replay one with its HUDI_FAULT_REPLAY"
    )
    if failed:
        pytest.fail(header + "\n" + "\n".join(r.render() for r in failed), pytrace=False)


@pytest.fixture(scope="module")
def s3_pool(endpoint: str) -> ScenarioPool:
    """One bucket and one set of prepared scenarios for both S3 campaigns."""
    bucket = f"hudi-campaign-{uuid.uuid4().hex[:10]}"
    admin_client(endpoint).create_bucket(Bucket=bucket)
    return ScenarioPool(S3Store(endpoint, bucket))


def test_kill_campaign_on_local_disk(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    _run("kill-local", ScenarioPool(LocalStore(tmp_path)), request.config)


@pytest.mark.s3
@pytest.mark.parametrize("campaign", ["kill-s3", "s3-faults"])
def test_campaign_on_s3(
    campaign: str, s3_pool: ScenarioPool, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="werkzeug")  # moto's request log: thousands of lines per campaign
    _run(campaign, s3_pool, request.config)
