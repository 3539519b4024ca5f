"""Apache Hudi's own HFile reader reads the HFiles we write, and its writer writes the same bytes.

Through the oracle's ``hfile`` request, Apache Hudi 1.2.0's ``HFileReaderImpl`` reads every cell of
HFiles written by :mod:`hudi_framework.log.hfile_writer` (several data blocks, empty and large values,
many keys, each codec we write) and of HFILE_DATA block contents; its ``HFileWriterImpl`` writes the
same cells with the same settings (the creation time pinned), and the two files must be equal byte
for byte. The fixture test (tests/acceptance/test_hfile_writer_fixtures.py) covers single-block files
as Apache Hudi wrote them; this one adds multi-block files, meta blocks and the empty file.
"""

from __future__ import annotations

import base64
import io
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import fastavro
import pytest

from hudi_framework.log import HeaderKey, HFileBlock
from hudi_framework.log.hfile import HFileCompression
from hudi_framework.log.hfile_records import encode_hfile_base_file
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally

pytestmark = [pytest.mark.oracle]

CREATED = 1_772_900_000_000
#: The file info entries the writer adds itself, compared besides any the case appends.
WRITER_INFO = ("hfile.LASTKEY", "hfile.AVG_KEY_LEN", "hfile.AVG_VALUE_LEN", "hfile.CREATE_TIME_TS", "KEY_VALUE_VERSION")
CODECS = {HFileCompression.GZ: "gz", HFileCompression.NONE: "none"}


@dataclass(frozen=True)
class Case:
    name: str
    keys: list[str]
    values: list[bytes]
    block_size: int
    file_info: Mapping[str, bytes] = field(default_factory=dict)
    meta: Mapping[str, bytes] = field(default_factory=dict)


def _cases(seed: int, many: int) -> list[Case]:
    rng = random.Random(seed)
    keys = sorted({f"key-{rng.randrange(10**9):09d}-{'é' * rng.randrange(3)}" for _ in range(many)}, key=str.encode)
    values = [rng.randbytes(rng.choice([0, 0, 1, 17, 120, 900])) for _ in keys]
    big = [rng.randbytes(200_000), b"", rng.randbytes(70_000)]
    return [
        # Many keys over many 4 KiB blocks, empty values among them, file info and a meta block.
        Case(
            "many-keys-small-blocks",
            keys,
            values,
            4096,
            {"schema": b'{"type":"record"}', "minRecordKey": keys[0].encode(), "maxRecordKey": keys[-1].encode()},
            {"bloomFilter": rng.randbytes(3000)},
        ),
        # Values larger than the block (and than the 16 KiB checksum chunk), one per block.
        Case("large-values", ["a", "b", "c"], big, 65_536),
        # Hudi's default block size: everything in one block.
        Case("default-block-size", keys[:50], values[:50], 1024 * 1024),
    ]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _apache_hudi_reads(apache_hudi: ApacheHudi, path: Path, case: Case) -> dict[str, object]:
    return apache_hudi.call(
        {"op": "hfile", "action": "read", "path": str(path), "file_info": [*case.file_info, *WRITER_INFO],
         "meta": list(case.meta)}
    )  # fmt: skip


def _gzip_os(apache_hudi: ApacheHudi) -> int:
    """The gzip header OS byte of the oracle's JDK: 255 from JDK 16 on (JDK-8244706), 0 before."""
    (row,) = apache_hudi.sql("SELECT java_method('java.lang.System', 'getProperty', 'java.specification.version') AS v")
    version = str(row["v"])
    return 255 if int(version.removeprefix("1.").split(".")[0]) >= 16 else 0


def _check(apache_hudi: ApacheHudi, tally: Tally, tmp_path: Path, case: Case, codec: HFileCompression) -> None:
    options = HFileWriteOptions(
        block_size=case.block_size, compression=codec, creation_time_ms=CREATED, gzip_os=_gzip_os(apache_hudi)
    )
    ours = write_hfile(
        [k.encode() for k in case.keys], case.values, file_info=case.file_info, meta_blocks=case.meta, options=options
    )
    ours_path = tmp_path / f"ours-{case.name}-{codec.name}.hfile"
    ours_path.write_bytes(ours)
    label = f"{case.name}/{codec.name}"
    tally.tables.add(str(ours_path))

    read = _apache_hudi_reads(apache_hudi, ours_path, case)
    tally.comparisons += 1
    assert read["entries"] == len(case.keys), label
    assert read["keys"] == case.keys, label
    assert [base64.b64decode(v) for v in read["values"]] == case.values, label  # type: ignore[attr-defined]
    info = {k: base64.b64decode(v) for k, v in read["file_info"].items()}  # type: ignore[attr-defined]
    for name, value in case.file_info.items():
        assert info[name] == value, f"{label}: file info {name}"
    assert set(WRITER_INFO) <= set(info), label
    assert {k: base64.b64decode(v) for k, v in read["meta"].items()} == dict(case.meta), label  # type: ignore[attr-defined]

    theirs_path = tmp_path / f"theirs-{case.name}-{codec.name}.hfile"
    apache_hudi.call(
        {"op": "hfile", "action": "write", "path": str(theirs_path), "keys": case.keys,
         "values": [_b64(v) for v in case.values], "file_info": {k: _b64(v) for k, v in case.file_info.items()},
         "meta": {k: _b64(v) for k, v in case.meta.items()}, "codec": CODECS[codec], "block_size": case.block_size,
         "created": CREATED}
    )  # fmt: skip
    theirs = theirs_path.read_bytes()
    first_difference = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), None)
    assert ours == theirs, f"{label}: {len(ours)} vs {len(theirs)} bytes, first difference at {first_difference}"
    tally.agreements += 1
    tally.rows += len(case.keys)


@pytest.mark.parametrize("codec", [HFileCompression.GZ, HFileCompression.NONE], ids=["GZ", "NONE"])
def test_apache_hudi_reads_our_hfiles_and_writes_the_same_bytes(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, codec: HFileCompression
) -> None:
    for case in _cases(seed=21, many=1500):
        _check(apache_hudi, oracle_tally, tmp_path, case, codec)


def test_apache_hudi_reads_our_hfile_data_block(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    schema = {
        "type": "record",
        "name": "R",
        "fields": [{"name": "key", "type": "string"}, {"name": "n", "type": "long"}],
    }
    rows = [{"key": f"k{i:04d}", "n": i * 7} for i in range(300, 0, -1)]
    block = HFileBlock.create(rows, instant_time="20260101000000000", schema=schema)
    path = tmp_path / "block.hfile"
    path.write_bytes(block.content)
    read = _apache_hudi_reads(apache_hudi, path, Case("block", [], [], 0, {"schema": b""}))
    oracle_tally.comparisons += 1
    assert read["keys"] == sorted(str(r["key"]) for r in rows)
    # Each value is the record's Avro datum with the key blanked.
    parsed = fastavro.parse_schema(schema)
    expected: dict[object, bytes] = {}
    for row in rows:
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, {**row, "key": ""})
        expected[row["key"]] = out.getvalue()
    keys: list[str] = read["keys"]
    assert [base64.b64decode(v) for v in read["values"]] == [expected[k] for k in keys]  # type: ignore[attr-defined]
    assert base64.b64decode(read["file_info"]["schema"]) == block.header[HeaderKey.SCHEMA].encode()  # type: ignore[index]
    oracle_tally.agreements += 1
    oracle_tally.rows += len(rows)


@pytest.mark.oracle_full
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_hfiles_agree_with_apache_hudi(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    for case in _cases(seed, many=rng.randrange(1, 4000)):
        for codec in CODECS:
            _check(apache_hudi, oracle_tally, tmp_path, Case(case.name, case.keys, case.values, rng.choice(
                [64, 1000, 16_384, 70_000, case.block_size]), case.file_info, case.meta), codec)  # fmt: skip


@pytest.mark.oracle_full
def test_empty_hfile_agrees_with_apache_hudi(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    for codec in CODECS:
        _check(apache_hudi, oracle_tally, tmp_path, Case("empty", [], [], 1024 * 1024, {"schema": b"{}"}), codec)


def test_apache_hudi_reads_our_base_file_records_and_bloom_filter(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    schema = {
        "type": "record",
        "name": "HoodieMetadataRecord",
        "namespace": "org.apache.hudi.avro.model",
        "fields": [
            {"name": "key", "type": "string"},
            {"name": "type", "type": "int"},
            {"name": "note", "type": ["null", "string"], "default": None},
        ],
    }
    rows = [{"key": f"part={i:03d}", "type": i % 3, "note": None if i % 2 else f"n{i}"} for i in range(400, 0, -1)]
    path = tmp_path / "files-0000-0_0-1-1_20260101000000000.hfile"
    path.write_bytes(encode_hfile_base_file(rows, schema, options=HFileWriteOptions(block_size=2048)))
    probe = ["part=001", "part=400", "part=999", "absent"]
    read = apache_hudi.call(
        {"op": "hfile", "action": "records", "path": str(path), "fields": ["key", "type", "note"], "probe": probe}
    )
    oracle_tally.comparisons += 1
    expected = sorted(rows, key=lambda r: str(r["key"]))
    assert (read["min"], read["max"], read["total"]) == ("part=001", "part=400", len(rows))
    # Hudi's reader restores the blanked key field from the row key.
    assert read["rows"] == [{k: str(v) if v is not None else "None" for k, v in r.items()} for r in expected]
    assert read["bloom_type"] == "DYNAMIC_V0"
    assert read["bloom_contains"][:2] == [True, True]
    oracle_tally.agreements += 1
    oracle_tally.rows += len(rows)
