"""Kill an executor JVM once the first attempt of Spark partition 0 has marked a data file of a write.

``python -m tests.cluster.killer EXECUTOR_PID TABLE_PATH LOG_DIR``, started (detached) by that
attempt's input task: it watches the table's marker directory and sends SIGKILL to the executor the
moment the attempt's marker (write token ``0-<stage>-0``, written before its data file) appears, so
the task dies while writing and its marker, perhaps a partial file, stays behind for the commit to
clean up. Gives up after a minute.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

_FIRST_ATTEMPT_OF_PARTITION_0 = re.compile(r"_0-\d+-0_.*\.marker\.")


def main(executor: int, table: Path, log_dir: Path) -> None:
    markers = table / ".hoodie" / ".temp"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for root, _dirs, files in os.walk(markers):
            hit = next((f for f in files if _FIRST_ATTEMPT_OF_PARTITION_0.search(f)), None)
            if hit is not None:
                os.kill(executor, signal.SIGKILL)
                (log_dir / f"killed-{executor}").write_text(str(Path(root, hit).relative_to(table)))
                return
        time.sleep(0.002)
    (log_dir / "never-killed").touch()


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
