from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import InstantMetadataError
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.metadata import (
    CommitMetadata,
    ReplaceCommitMetadata,
    WriteStat,
    commit_metadata_to_avro,
    commit_metadata_to_avro_record,
    commit_metadata_to_json,
    decode_commit_metadata,
    decode_written_files,
    encode_commit_metadata,
)
from tests.fixture_tables import FixtureTable, all_fixture_tables
from tests.unit.timeline.strategies import commit_metadata

_EXCLUDE = {"partition_to_write_stats": {"__all__": {"__all__": {"records_stats"}}}}


def _dump(md: CommitMetadata) -> dict[str, object]:
    return md.model_dump(exclude=_EXCLUDE)  # type: ignore[arg-type]


@settings(max_examples=150)
@given(commit_metadata(json_shape=False))
def test_avro_round_trip(md: CommitMetadata) -> None:
    data = encode_commit_metadata(md, 2)
    back = decode_commit_metadata(data)
    assert type(back) is type(md)
    assert _dump(back) == _dump(md)


@settings(max_examples=150)
@given(commit_metadata(json_shape=True))
def test_json_round_trip(md: CommitMetadata) -> None:
    data = encode_commit_metadata(md, 1)
    json.loads(data)  # valid JSON
    back = decode_commit_metadata(data)
    assert type(back) is type(md)
    assert _dump(back) == _dump(md)
    # Layout-2 readers accept JSON ("legacy" instants), as Java's CommitMetadataSerDeV2 does.
    assert _dump(decode_commit_metadata(data, replace=isinstance(md, ReplaceCommitMetadata))) == _dump(md)


def _named(md: CommitMetadata) -> tuple[tuple[str, str], ...]:
    """What decode_written_files must find: the file name of every stat with a path, and its partition."""
    return tuple(
        (s.partition_path if s.partition_path is not None else p, s.path.rsplit("/", 1)[-1])
        for p, stats in (md.partition_to_write_stats or {}).items()
        for s in stats
        if s.path not in (None, "", "null")
    )


@settings(max_examples=100)
@given(commit_metadata(json_shape=False), st.booleans())
def test_written_files_match_the_full_decode(md: CommitMetadata, json_layout: bool) -> None:
    data = encode_commit_metadata(md, 1 if json_layout else 2)
    assert decode_written_files(data) == _named(decode_commit_metadata(data))
    assert decode_written_files(b"") == ()


def test_empty_files_decode_to_empty_instances() -> None:
    assert decode_commit_metadata(b"") == CommitMetadata()
    assert isinstance(decode_commit_metadata(b"  \n", replace=True), ReplaceCommitMetadata)


def test_delta_stat_json_keys() -> None:
    stat = WriteStat(file_id="f", path="p/.f_1.log.1_0-1-1", log_version=1, log_offset=0, base_file="", log_files=["x"])
    md = CommitMetadata(partition_to_write_stats={"p": [stat]}, operation_type="UPSERT")
    doc = json.loads(commit_metadata_to_json(md))
    keys = list(doc["partitionToWriteStats"]["p"][0])
    assert keys[-5:] == ["logVersion", "logOffset", "baseFile", "logFiles", "recordsStats"]
    assert doc["partitionToWriteStats"]["p"][0]["recordsStats"] == {"val": None}
    assert list(doc) == ["partitionToWriteStats", "compacted", "extraMetadata", "operationType"]


def test_replace_metadata_helpers() -> None:
    md = ReplaceCommitMetadata(
        partition_to_replace_file_ids={"a": ["1", "2"], "": ["3"]}, extra_metadata={"schema": "s"}
    )
    assert md.replaced_file_ids() == [("a", "1"), ("a", "2"), ("", "3")]
    assert md.writer_schema == "s"
    assert list(commit_metadata_to_avro_record(md))[-1] == "partitionToReplaceFileIds"
    assert read_container(commit_metadata_to_avro(md)).short_name == "HoodieReplaceCommitMetadata"


@pytest.mark.parametrize(
    "data",
    [b"\x00\x01garbage", b"[1, 2]", b'{"partitionToWriteStats": 5}', b"Obj\x01\x02"],
)
def test_undecodable_content_raises(data: bytes) -> None:
    with pytest.raises(InstantMetadataError):
        decode_commit_metadata(data, path="x")
    with pytest.raises(InstantMetadataError):
        decode_written_files(data, path="x")


def test_other_avro_record_is_rejected() -> None:
    plan = write_container(AvroSchemaName.ROLLBACK_PLAN, {"instantToRollback": None, "RollbackRequests": None})
    with pytest.raises(InstantMetadataError, match="HoodieRollbackPlan"):
        decode_commit_metadata(plan)


def _commit_files(base: Path) -> list[Path]:
    out = []
    for timeline in (base / ".hoodie", base / ".hoodie" / "timeline"):
        if timeline.is_dir():
            for p in sorted(timeline.iterdir()):
                name = p.name
                if name[:1].isdigit() and name.endswith((".commit", ".deltacommit", ".replacecommit", ".inflight")):
                    out.append(p)
    return out


_SAMPLES = [
    t
    for t in all_fixture_tables()
    if t.name
    in {
        "v6_nonpartitioned_rollback",
        "v8_nonpartitioned",
        "v9_txns_simple_meta",
        "v6_simplekeygen_nonhivestyle_overwritetable",
    }
]


@pytest.mark.parametrize("table", _SAMPLES, ids=lambda t: t.id)
def test_reencoding_fixture_commit_metadata_is_byte_identical(
    table: FixtureTable, extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]]
) -> None:
    base, _ = extract_fixture(table)
    files = _commit_files(base)
    assert files
    for path in files:
        data = path.read_bytes()
        if not data:
            continue
        md = decode_commit_metadata(data, path=str(path))
        assert decode_written_files(data) == _named(md), path
        if data.startswith(b"Obj\x01"):
            java = read_container(data)
            ours = read_container(commit_metadata_to_avro(md))
            assert ours.datum == java.datum, path  # the datum bytes Java wrote
            assert ours.writer_schema == java.writer_schema, path
            assert commit_metadata_to_avro(md, sync_marker=data[-16:]) == data, path  # whole file
        else:
            assert commit_metadata_to_json(md) == data, path  # Jackson's pretty printing
