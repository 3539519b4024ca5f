"""A damaged log block of a merge-on-read table, on local disk and on S3: compaction refuses to turn the
skip into permanent loss unless the user opts in, ``hudi-fw show log-blocks`` lists the damage, and
the documented repairs (roll back the writing instant; truncate a torn tail) leave a table that our
reader and hudi-rs read alike and that compacts.

The table: 250 rows, then one delta commit updating all 250 (one log block), whose block gets 8
flipped bytes inside its records; readers skip the whole block, so 250 updates are lost to them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import CompactionCorruptLogError, LogRepairError, PostCommitWarning, SavepointError
from hudi_framework.log import DataBlock, LogBlock, encode_blocks, log_file_key, read_log_file
from hudi_framework.model.schema import arrow_to_avro, avro_json
from hudi_framework.read.log_inspection import inspect_log_blocks
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.write.client import WriteClient
from hudi_framework.write.log_repair import truncate_log_tail
from hudi_framework.write.savepoint import rollback_latest_commit
from hudi_services_compaction import CompactionService, CompactionServiceOptions
from tests.faults.s3_faults import Place, Rows, hudi_rs, ours
from tests.unit.mor_read.builder import MorBuilder, data_block
from tests.unit.read.builder import FileWrite, rows, t

N = 250
runner = CliRunner()


@dataclass(frozen=True)
class Damage:
    key: str  # the damaged log file
    offset: int  # where its damaged block starts
    instant: str  # the delta commit that wrote the block


def _batch(ts: int, n: int = N) -> pa.Table:
    return pa.table({"id": [f"k{i:03}" for i in range(n)], "city": ["sf"] * n, "ts": [ts] * n})


def _rows(ts: int, n: int = N) -> Rows:
    return [(f"k{i:03}", "sf", ts) for i in range(n)]


def _table(place: Place, version: int) -> HudiTable:
    """250 inserted rows, then one delta commit (a log block) updating every one of them."""
    config = new_table_config(
        "t", version=version, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options))
    client.insert(_batch(1))
    client.upsert(_batch(2))
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(2)
    return client.table.reload()


def _update_block(table: HudiTable) -> tuple[str, DataBlock]:
    for file_slice in table.latest_file_slices():
        for key in file_slice.log_file_keys:
            for block in read_log_file(table.storage, key):
                if isinstance(block, DataBlock) and block.record_count == N:
                    return key, block
    raise AssertionError("no log block with the 250 updates")


def _flip_8_bytes(table: HudiTable) -> Damage:
    """Flip 8 bytes of the update block's records (its frame stays intact): the first page header of
    its Parquet content, which every reader must decode (bytes of a page's values may decode to other
    values unnoticed by a reader that does not verify page checksums, as hudi-rs)."""
    key, block = _update_block(table)
    assert block.position is not None
    assert block.instant_time is not None
    data = bytearray(table.storage.read(key))
    end = block.position.offset + block.position.size
    middle = data.index(b"PAR1", block.position.offset, end) + 4
    for i in range(middle, middle + 8):
        data[i] ^= 0xFF
    table.storage.write(key, bytes(data))
    return Damage(key, block.position.offset, block.instant_time)


def _files(table: HudiTable) -> dict[str, str]:
    """Every file of the table (timeline included) with a hash of its bytes."""
    storage = table.storage
    return {i.key: hashlib.sha256(storage.read(i.key)).hexdigest() for i in storage.list("", recursive=True)}


def _hudi_rs_error(place: Place) -> str:
    with pytest.raises(Exception) as caught:  # hudi-rs raises its own HudiCoreError
        hudi_rs(place.uri, place.endpoint)
    return str(caught.value)


def _schedule(table: HudiTable, service: CompactionService | None = None) -> str:
    instant = (service or CompactionService()).schedule(table)
    assert instant is not None
    return instant


def _opt_in() -> CompactionService:
    settings = HudiSettings(services={"compaction": {"skip_corrupt_log_blocks": True}})
    return CompactionService(CompactionServiceOptions(**settings.services.compaction.service_options()))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("version", [6, 9])
def test_compaction_refuses_a_corrupt_block_and_changes_nothing(place: Place, version: int) -> None:
    table = _table(place, version)
    damage = _flip_8_bytes(table)
    # Readers skip the block with a warning: every update is lost to them (hudi-rs fails instead).
    assert ours(place.uri, place.options) == _rows(1)
    rs_error = _hudi_rs_error(place)
    instant = _schedule(table)
    before = _files(table)

    with pytest.raises(CompactionCorruptLogError) as refused:
        CompactionService().run(table, instant)
    error = refused.value
    location = table.storage.uri(damage.key)
    assert (error.instant, error.path, error.offset, error.instant_time) == (
        instant, location, damage.offset, damage.instant,
    )  # fmt: skip
    for part in (location, f"offset {damage.offset}", damage.instant):
        assert part in str(error)
    assert "skip_corrupt_log_blocks" in str(error), "the message names the opt-in"

    assert _files(table) == before, "no base file, marker or timeline file left behind"
    (pending,) = table.reload().timeline.pending({Action.COMPACTION})
    assert (pending.requested_time, pending.state) == (instant, State.REQUESTED)
    assert ours(place.uri, place.options) == _rows(1)
    assert _hudi_rs_error(place) == rs_error


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("version", [6, 9])
def test_opting_in_compacts_and_the_skipped_block_is_the_accepted_loss(place: Place, version: int) -> None:
    table = _table(place, version)
    _flip_8_bytes(table)
    accepted = ours(place.uri, place.options)
    assert accepted == _rows(1)
    service = _opt_in()
    instant = _schedule(table, service)
    result = service.run(table, instant)
    assert [s.total_corrupt_log_block for s in result.stats] == [1]
    # The new base file holds what readers showed before: nothing more is lost, and hudi-rs (which
    # failed on the damaged block) now reads the same rows.
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == accepted
    assert all(not s.has_log_files for s in table.reload().latest_file_slices())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_compaction_cli_opt_in_flag(tmp_path: Path) -> None:
    place = Place(str(tmp_path / "t"), None)
    table = _table(place, 9)
    damage = _flip_8_bytes(table)
    instant = _schedule(table)
    refused = runner.invoke(app, ["compaction", "run", place.uri, "--instant", instant])
    assert refused.exit_code != 0
    assert isinstance(refused.exception, CompactionCorruptLogError)
    assert refused.exception.offset == damage.offset
    done = runner.invoke(app, ["compaction", "run", place.uri, "--instant", instant, "--skip-corrupt-log-blocks"])
    assert done.exit_code == 0, done.output
    assert ours(place.uri) == hudi_rs(place.uri) == _rows(1)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("version", [6, 9])
def test_inspection_lists_the_corrupt_block(place: Place, version: int) -> None:
    table = _table(place, version)
    damage = _flip_8_bytes(table)
    infos = inspect_log_blocks(place.open())
    (bad,) = [i for i in infos if i.corrupt]
    assert (bad.log_file, bad.offset, bad.instant_time) == (damage.key, damage.offset, damage.instant)
    assert bad.status == "lost"
    assert bad.reason
    ok = [i for i in infos if not i.corrupt]
    assert all(i.status == "ok" for i in ok)

    if place.endpoint is None:  # the command line, on local disk
        shown = runner.invoke(app, ["show", "log-blocks", place.uri, "--partition", "sf", "--json"])
        assert shown.exit_code == 0, shown.output
        rows = json.loads(shown.output)
        (row,) = [r for r in rows if r["corrupt"]]
        assert (row["log_file"], row["offset"], row["instant"], row["status"], row["type"]) == (
            damage.key, damage.offset, damage.instant, "lost", "CORRUPT",
        )  # fmt: skip
        assert {r["records"] for r in rows if not r["corrupt"]} <= {N, None}
        text = runner.invoke(app, ["show", "log-blocks", place.uri])
        assert text.exit_code == 0, text.output
        assert "corrupt: lost" in text.output
        assert str(damage.offset) in text.output


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("version", [6, 9])
def test_rolling_back_the_writing_instant_repairs_the_table(place: Place, version: int) -> None:
    table = _table(place, version)
    damage = _flip_8_bytes(table)
    rolled = rollback_latest_commit(table, damage.instant)
    assert rolled.rollback_instant is not None
    table = place.open()
    # The delta commit is undone everywhere: both readers show the inserted rows, and no remaining
    # damage can lose rows (v6 keeps the block behind a rollback command block; v9 deleted its file).
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(1)
    left = [i for i in inspect_log_blocks(table) if i.corrupt]
    assert [i.status for i in left] == (["rolled-back"] if version == 6 else [])
    # The lost updates are written again (from their source), and the slice compacts.
    WriteClient(table).upsert(_batch(2))
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(2)
    table = place.open()
    CompactionService().run(table, _schedule(table))
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(2)
    assert all(not s.has_log_files for s in table.reload().latest_file_slices())


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_truncating_a_torn_tail_repairs_the_table(place: Place) -> None:
    """A v6 writer that died while appending leaves a block cut inside its header (no instant to
    attribute it to): compaction refuses, the truncate repair removes the tail, and compaction runs."""
    table = _table(place, 6)
    key, block = _update_block(table)
    good = table.storage.read(key)
    torn = good + good[:20]  # magic, length, version, type and part of the header of a next block
    table.storage.write(key, torn)
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(2)
    (bad,) = [i for i in inspect_log_blocks(table) if i.corrupt]
    assert (bad.log_file, bad.offset, bad.instant_time, bad.status) == (key, len(good), None, "unknown")
    instant = _schedule(table)
    with pytest.raises(CompactionCorruptLogError, match=f"offset {len(good)}"):
        CompactionService().run(table, instant)

    with pytest.raises(LogRepairError, match="offset"):
        truncate_log_tail(table, key, block.position.offset if block.position else 0)  # an intact block
    done = truncate_log_tail(table, key, len(good))
    assert (done.removed_bytes, table.storage.read(key)) == (20, good)
    assert table.storage.read(done.backup_key) == torn
    assert not [i for i in inspect_log_blocks(table) if i.corrupt]
    CompactionService().run(table.reload(), instant)
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint) == _rows(2)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_truncate_refuses_a_committed_block_and_the_cli_truncates(tmp_path: Path) -> None:
    """Truncation only removes a damaged tail that holds no committed rows; the CLI does it by offset."""
    place = Place(str(tmp_path / "t"), None)
    table = _table(place, 9)
    key, block = _update_block(table)
    good = table.storage.read(key)
    table.storage.write(key, good[:-10])  # the committed block itself lost its end
    with pytest.raises(LogRepairError, match=block.instant_time or ""):
        truncate_log_tail(table, key, 0)
    assert table.storage.read(key) == good[:-10]

    other = _table(Place(str(tmp_path / "u"), None), 6)
    key, _ = _update_block(other)
    good = other.storage.read(key)
    other.storage.write(key, good + good[:20])
    out = runner.invoke(app, ["repair", "truncate-log", str(tmp_path / "u"), key, "--offset", str(len(good))])
    assert out.exit_code == 0, out.output
    assert other.storage.read(key) == good


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_inline_compaction_refuses_after_the_write_committed(tmp_path: Path) -> None:
    """hoodie.compact.inline: the write that triggers the compaction stays committed and says so;
    the refusal is reported as a failure after the commit (never raised: a caller retrying a
    committed write would write it twice) and the plan stays requested."""
    place = Place(str(tmp_path / "t"), None)
    table = _table(place, 9)
    damage = _flip_8_bytes(table)
    settings = HudiSettings(services={"compaction": {"inline": True, "max_delta_commits": 1}})
    with pytest.warns(PostCommitWarning, match="corrupt log block"):
        result = WriteClient(place.open(), settings).upsert(_batch(3, n=5))
    assert result.committed
    (failure,) = result.post_commit_failures
    assert failure.step == "compaction"
    refused = failure.error if isinstance(failure.error, CompactionCorruptLogError) else failure.error.__cause__
    assert isinstance(refused, CompactionCorruptLogError), failure
    assert refused.offset == damage.offset
    timeline = place.open().timeline
    assert [i.state for i in timeline.pending({Action.COMPACTION})] == [State.REQUESTED]
    assert ours(place.uri) == sorted(_rows(3, 5) + _rows(1)[5:])


def _shared_log_table(path: Path) -> tuple[MorBuilder, str, list[int]]:
    """A v6 slice as Apache Hudi 0.x leaves it on appendable storage: base rows a, b, c, then three
    delta commits appending one block each (updating a, b, c in turn) to the same log file."""
    b = MorBuilder(str(path), version=6)
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf"), ("c", 1, 3.0, "sf")))])
    key = log_file_key("sf", b.log_name("f1-0", t(2), t(1)))
    blocks: list[LogBlock] = []
    for n, record in ((2, ("a", 2, 10.0, "sf")), (3, ("b", 2, 20.0, "sf")), (4, ("c", 2, 30.0, "sf"))):
        inflight = b.start(t(n), Action.DELTA_COMMIT)
        blocks.append(data_block(t(n), rows(record), "sf", "f1-0"))
        b.storage.write(key, encode_blocks(blocks)[0])  # the append
        stat = WriteStat(file_id="f1-0", path=key, partition_path="sf", prev_commit=t(1))
        b.writer.complete(
            inflight,
            CommitMetadata(
                partition_to_write_stats={"sf": [stat]},
                extra_metadata={"schema": avro_json(arrow_to_avro(b.schema, "trips"))},
                operation_type="UPSERT",
            ),
        )
    offsets = encode_blocks(blocks)[1]
    return b, key, list(offsets)


def _fares(table: HudiTable) -> dict[str, float]:
    out = read_table(table)
    return dict(zip(out.column("id").to_pylist(), out.column("fare").to_pylist(), strict=True))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_corrupt_middle_block_of_a_shared_v6_log(tmp_path: Path) -> None:
    """Damage in the middle block of a log file holding three delta commits: the blocks after it
    still count, inspection and compaction name it, and rolling back down to its instant repairs it."""
    b, key, offsets = _shared_log_table(tmp_path / "t")
    data = bytearray(b.storage.read(key))
    middle = (offsets[1] + offsets[2]) // 2
    for i in range(middle, middle + 8):
        data[i] ^= 0xFF
    b.storage.write(key, bytes(data))
    table = HudiTable.open(str(tmp_path / "t"))
    assert _fares(table) == {"a": 10.0, "b": 2.0, "c": 30.0}  # only t(3)'s update is skipped

    infos = inspect_log_blocks(table)
    assert [(i.offset, i.instant_time, i.status) for i in infos] == [
        (offsets[0], t(2), "ok"), (offsets[1], t(3), "lost"), (offsets[2], t(4), "ok"),
    ]  # fmt: skip
    instant = _schedule(table)
    with pytest.raises(CompactionCorruptLogError) as refused:
        CompactionService().run(table, instant)
    assert (refused.value.offset, refused.value.instant_time) == (offsets[1], t(3))
    table.storage.delete(table.timeline.file_key(table.timeline.get(instant), State.REQUESTED))

    # Only the latest commit can be rolled back (as in Apache Hudi): t(4), then t(3).
    with pytest.raises(SavepointError):
        rollback_latest_commit(table.reload(), t(3))
    rollback_latest_commit(table.reload(), t(4))
    rollback_latest_commit(table.reload(), t(3))
    table = HudiTable.open(str(tmp_path / "t"))
    assert [i.status for i in inspect_log_blocks(table) if i.corrupt] == ["rolled-back"]
    assert _fares(table) == {"a": 10.0, "b": 2.0, "c": 3.0}
    CompactionService().run(table, _schedule(table))
    assert _fares(table.reload()) == {"a": 10.0, "b": 2.0, "c": 3.0}
    assert sorted(r[0] for r in hudi_rs(str(tmp_path / "t"))) == ["a", "b", "c"]
