"""The metadata table's steps: the tagging tables really hold 8, 64 and 512 file groups and both
indexes tag the batch alike on them, the record-index upsert leaves the rows the bloom-index one
does, the filtered read planned from the MDT's column stats reads the files and rows the read
without the MDT does, and the report's ratios and tagging table."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from bench.dataset import KEY, Inputs, generate
from bench.registry import all_steps
from bench.report import METADATA_TABLE_RATIOS, TAGGING_FILE_GROUPS, markdown, ratios_table, tagging_table
from bench.runner import Result
from bench.step import StepContext
from bench.systems import ours
from hudi_framework.metadata.record_index_locator import locator_for
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.moves import tag_for_write
from hudi_framework.write.prepare import prepare_rows
from hudi_framework.write.session import WriteSession

#: 8 partitions of 640 rows: 64 file groups of 10 rows each at the most file groups.
ROWS = 5_120


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return generate(tmp_path_factory.mktemp("inputs"), ROWS)


def _sorted(rows: pa.Table) -> pa.Table:
    return rows.sort_by(KEY)


@pytest.mark.parametrize("count", TAGGING_FILE_GROUPS)
def test_tagging_tables_hold_the_file_groups_named_and_both_indexes_tag_alike(
    count: int, inputs: Inputs, tmp_path: Path
) -> None:
    steps, _ = all_steps()
    rli, bloom = steps[f"ours:rli_tagging_{count}fg"], steps[f"ours:bloom_tagging_{count}fg"]
    assert rli.prepare is bloom.prepare, "one table per file-group count, prepared once"
    ctx = StepContext(inputs, tmp_path)
    assert rli.prepare is not None
    rli.prepare(ctx)
    table = HudiTable.open(str(tmp_path / "table"))
    assert len(table.latest_file_slices()) == count
    assert read_table(table).num_rows == ROWS
    by_rli, by_bloom = rli.run(ctx), bloom.run(ctx)
    assert by_rli == by_bloom == {"rows": inputs.read_changes().num_rows, "file_groups": count}


def test_the_record_index_tags_from_the_metadata_table_as_the_bloom_index_from_files(
    inputs: Inputs, tmp_path: Path
) -> None:
    ctx = StepContext(inputs, tmp_path)
    ours._load_file_groups(64)(ctx)
    tagged = {}
    for index in ("RECORD_INDEX", "BLOOM"):
        table = HudiTable.open(str(tmp_path / "table"))
        extra = {**ours.RLI_SETTINGS, **ours.file_group_settings(ctx, 64), "hoodie.index.type": index}
        session = WriteSession(table, ours.settings(extra=extra))
        # The record index looks keys up in the MDT's record_index; the bloom index has no key map.
        assert (locator_for(session.index, table.storage) is not None) == (index == "RECORD_INDEX")
        rows = prepare_rows(WriteOperation.UPSERT, inputs.read_changes(), table.schema(), session.keygen)
        found = tag_for_write(
            rows, table.latest_file_slices(), table.storage, config=table.config, index=session.index,
            merger=session.merger, keygen=session.keygen,
        )  # fmt: skip
        tagged[index] = _sorted(found)
    assert tagged["RECORD_INDEX"].equals(tagged["BLOOM"])


def test_the_record_index_upsert_leaves_the_rows_of_the_bloom_index_upsert(inputs: Inputs, tmp_path: Path) -> None:
    steps, _ = all_steps()
    read = {}
    for key in ("ours:mor_upsert_1pct_rli", "ours:mor_upsert_1pct"):
        ctx = StepContext(inputs, tmp_path / key.replace(":", "-"))
        ctx.work.mkdir()
        step = steps[key]
        assert step.prepare is not None
        step.prepare(ctx)
        assert step.run(ctx) == {"rows": ROWS // 100, "files": 8}
        read[key] = _sorted(read_table(HudiTable.open(str(ctx.work / "table"))))
    kept = [c for c in read["ours:mor_upsert_1pct"].column_names if not c.startswith("_hoodie")]
    assert read["ours:mor_upsert_1pct_rli"].select(kept).equals(read["ours:mor_upsert_1pct"].select(kept))
    table = HudiTable.open(str(tmp_path / "ours-mor_upsert_1pct_rli" / "table"))
    assert (tmp_path / "ours-mor_upsert_1pct_rli" / "table" / ".hoodie" / "metadata" / "record_index").is_dir()
    assert table.config.table_type.value == "MERGE_ON_READ"


def test_the_filtered_read_from_the_mdt_reads_what_the_read_without_it_reads(
    inputs: Inputs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 100 commits each keeping the metadata table take minutes: 10 chunks, the third picked.
    monkeypatch.setattr(ours, "CLUSTERED_CHUNKS", 10)
    monkeypatch.setattr(ours, "_PICKED_CHUNK", 3)
    steps, _ = all_steps()
    with_mdt, without = steps["ours:cow_read_1pct_files_mdt"], steps["ours:cow_read_1pct_files_mdt_off"]
    prepare = with_mdt.prepare
    assert prepare is not None
    assert prepare is without.prepare, "both reads start from the same table"
    ctx = StepContext(inputs, tmp_path)
    prepare(ctx)
    assert (tmp_path / "table" / ".hoodie" / "metadata" / "column_stats").is_dir()
    expected = {"rows": ROWS // 10, "files": 8, "files_skipped": 72}
    assert with_mdt.run(ctx) == expected
    assert without.run(ctx) == expected


def test_the_metadata_table_ratios_and_the_tagging_table() -> None:
    def result(key: str, wall: float) -> Result:
        return Result(key=key, rows=10, wall_s=wall, cpu_s=wall, peak_rss_mb=1.0, runs=3)

    results = [
        result("ours:mor_upsert_1pct_rli", 0.3), result("ours:cow_upsert_1pct", 1.0),
        result("ours:rli_tagging_8fg", 1.0), result("ours:rli_tagging_64fg", 1.1),
        result("ours:rli_tagging_512fg", 1.2),
        result("ours:bloom_tagging_8fg", 1.0), result("ours:bloom_tagging_512fg", 6.0),
        result("ours:cow_read_1pct_files_mdt", 0.05), result("ours:cow_read_1pct_files_mdt_off", 1.0),
    ]  # fmt: skip
    lines = {line.split("|")[1].strip(): line for line in ratios_table(results).splitlines()[2:]}
    upsert, rli, bloom, read = METADATA_TABLE_RATIOS
    assert "0.30 **not met**" in lines[upsert.label]
    assert "1.20 met" in lines[rli.label]
    assert "| - | 6.00 |" in lines[bloom.label]
    assert "0.05 met" in lines[read.label]
    table = tagging_table(results).splitlines()
    assert table[2:] == ["| 8 | 1.00 | 1.00 |", "| 64 | 1.10 | - |", "| 512 | 1.20 | 6.00 |"]
    assert tagging_table([result("ours:cow_upsert_1pct", 1.0)]) == ""
    report = markdown(results, machine="m", command="c", skipped=(), plot_file=None)
    assert "## Tagging against the number of file groups\n" in report
    assert "| 512 | 1.20 | 6.00 |" in report
    alone = markdown(results[:2], machine="m", command="c", skipped=(), plot_file=None)
    assert "## Tagging" not in alone
