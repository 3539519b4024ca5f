"""The campaign's own checks can fail: planted strays are found, accounted files are not, and the
kill hook stops a child exactly at the drawn storage call."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_services_cleaning.service import CleanService, CleanServiceOptions
from tests.faults.campaign.inventory import Stray, find_strays, local_listing
from tests.faults.campaign.runner import run_step
from tests.faults.campaign.scenarios import CLEAN_OPTIONS, Scenario, build
from tests.faults.campaign.worker import Step


def _accounted(table: HudiTable, root: Path) -> set[str]:
    """Files a healthy table needs: hoodie.properties, instant files, partition metadata, latest slices."""
    timeline_dir = table.timeline.directory
    keep = {".hoodie/hoodie.properties"}
    keep |= {f".hoodie/{p.name}" for p in (root / ".hoodie").iterdir() if p.is_file() and p.name[0].isdigit()}
    keep |= {f"{timeline_dir}/{p.name}" for p in (root / timeline_dir).iterdir() if p.is_file()}
    keep |= {str(p.relative_to(root)) for p in root.rglob(".hoodie_partition_metadata*")}
    for fs in table.latest_file_slices():
        names = ([fs.base_file_name] if fs.base_file_name else []) + fs.log_file_names
        keep |= {f"{fs.partition_path}/{name}" for name in names}
    return keep


def test_inventory_finds_every_planted_stray(tmp_path: Path) -> None:
    root = tmp_path / "t"
    build(Scenario("upsert", "COPY_ON_WRITE", 9), str(root), None)
    table = HudiTable.open(str(root))
    base_file = next(p for p in (root / "sf").iterdir() if p.suffix == ".parquet")
    file_id = base_file.name.split("_", 1)[0]
    planted = {
        Stray("temporary file", f"sf/.{base_file.name}.{'0' * 32}.tmp"),
        Stray("marker file", f".hoodie/.temp/20300101000000000/sf/{base_file.name}.marker.CREATE"),
        Stray("heartbeat file", ".hoodie/.heartbeat/20300101000000000"),
        Stray("hoodie.properties.backup", ".hoodie/hoodie.properties.backup"),
        Stray("unknown metadata file", ".hoodie/notes.txt"),
        Stray("unreferenced data file", f"sf/{file_id}_0-0-0_20300101000000000.parquet"),
        Stray("unknown file", "ny/notes.txt"),
    }
    for stray in planted:
        (root / stray.key).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base_file, root / stray.key)
    (root / "la" / "empty").mkdir(parents=True)
    (root / ".hoodie" / ".temp" / "20300101000000001" / "sf").mkdir(parents=True)
    planted |= {
        Stray("empty partition directory", "la"),
        Stray("empty directory under .hoodie/.temp", ".hoodie/.temp/20300101000000001"),
    }
    found = set(find_strays(table, local_listing(root)))
    assert planted <= found, f"not found: {planted - found}"
    assert not {s.key for s in found} & _accounted(table, root), "a file the table needs is called a stray"


def test_inventory_finds_a_file_a_completed_clean_deleted(tmp_path: Path) -> None:
    root = tmp_path / "t"
    build(Scenario("clean", "COPY_ON_WRITE", 6), str(root), None)
    before = {p: p.read_bytes() for p in root.glob("*/*.parquet")}
    table = HudiTable.open(str(root))
    settings = HudiSettings.from_hoodie_options(CLEAN_OPTIONS)
    CleanService(CleanServiceOptions(**settings.services.clean.service_options())).run(table, force=True)
    gone = sorted(p for p in before if not p.exists())
    assert gone, "the clean deleted files"
    gone[0].write_bytes(before[gone[0]])
    found = find_strays(table, local_listing(root))
    assert Stray("data file deleted by a completed clean", str(gone[0].relative_to(root))) in found
    assert not {s.key for s in found} & _accounted(table, root)


def test_kill_hook_stops_the_child_at_the_drawn_call(tmp_path: Path) -> None:
    scenario = Scenario("upsert", "MERGE_ON_READ", 6)
    build(scenario, str(tmp_path / "t"), None)
    shutil.copytree(tmp_path / "t", tmp_path / "u")
    dry = run_step(Step("operate", scenario, str(tmp_path / "t"), strip=str(tmp_path / "t"), record=True))
    assert dry.finished, dry.describe()
    assert len(dry.labels) == dry.points > 10
    point = next(i for i, (label, mutating) in enumerate(dry.labels, start=1) if mutating and "marker" in label)
    killed = run_step(Step("operate", scenario, str(tmp_path / "u"), strip=str(tmp_path / "u"), kill_at=point))
    assert killed.exitcode == -9
    assert killed.killed_at is not None
    assert killed.killed_at[0] == point
    assert _times(killed.killed_at[1]) == _times(dry.labels[point - 1][0]), "the same call as in the dry run"


def _times(label: str) -> str:
    return re.sub(r"\d{17}", "<instant>", label)
