"""The forkserver's preload: importing this module warms a process up for campaign children.

It imports :mod:`tests.faults.campaign.worker` and then, on import (this module exists only to be
preloaded by the forkserver of :mod:`tests.faults.campaign.runner`), writes and reads two small
tables in a temporary directory, so that the first-use work of pyarrow, the plugin registry and
the write path is done once in the server instead of in every forked child (half a child's CPU).
Arrow re-creates its thread pools after a fork, so children may use them.
"""

from __future__ import annotations

import shutil
import tempfile

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.write.client import WriteClient
from tests.faults.campaign import worker  # noqa: F401 - what the children run
from tests.faults.campaign.scenarios import OP_ROWS, Scenario, batch, build


def _warm_up() -> None:
    root = tempfile.mkdtemp(prefix="hudi-campaign-zygote-")
    try:
        for table_type, version in (("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9)):
            base = f"{root}/{table_type}-{version}"
            build(Scenario("upsert", table_type, version), base, None)
            WriteClient(HudiTable.open(base)).upsert(batch(OP_ROWS["upsert"]))
            read_table(HudiTable.open(base))
    finally:
        shutil.rmtree(root, ignore_errors=True)


_warm_up()
