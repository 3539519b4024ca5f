"""HoodieMetadataPayload merge semantics of the MDT reader, on hand-made record batches."""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.metadata.reader import _latest_per_key, _merge_column_stats, _merge_file_lists, _Records

_FILE_INFO = pa.map_(pa.string(), pa.struct([("size", pa.int64()), ("isDeleted", pa.bool_())]))


def _files(rows: list[tuple[str, int, list[tuple[str, int, bool]]]]) -> pa.Table:
    return pa.table(
        {
            "key": pa.array([r[0] for r in rows]),
            "type": pa.array([2] * len(rows), pa.int32()),
            "filesystemMetadata": pa.array(
                [[(n, {"size": s, "isDeleted": d}) for n, s, d in r[2]] for r in rows], _FILE_INFO
            ),
            "_seq": pa.array([r[1] for r in rows], pa.int64()),
        }
    )


def test_file_lists_union_keep_the_larger_size_and_honour_deletions() -> None:
    rows = _files(
        [
            ("p", 0, [("a", 10, False), ("b", 5, False)]),
            ("p", 1, [("a", 20, False), ("c", 1, False)]),  # a log file grew
            ("p", 2, [("b", 0, True)]),
            ("p", 3, [("c", 0, True)]),
            ("p", 4, [("c", 3, False)]),  # re-added after its deletion: the new size only
            ("q", 1, [("x", 7, False)]),
            ("q", 2, [("x", 0, True)]),
            ("r", 0, [("gone", 0, True)]),  # a tombstone for a file never listed
        ]
    )
    assert _merge_file_lists(rows) == {"p": {"a": 20, "c": 3}, "q": {}, "r": {}}


def test_a_later_size_smaller_than_an_earlier_one_keeps_the_larger() -> None:
    rows = _files([("p", 0, [("a", 30, False)]), ("p", 1, [("a", 10, False)])])
    assert _merge_file_lists(rows) == {"p": {"a": 30}}


def _deletes(rows: list[tuple[str, int]]) -> pa.Table:
    return pa.table(
        {"key": pa.array([r[0] for r in rows], pa.string()), "_seq": pa.array([r[1] for r in rows], pa.int64())}
    )


def test_latest_record_wins_and_delete_entries_remove() -> None:
    rows = pa.table(
        {"key": ["k1", "k2", "k1", "k3", "k3"], "v": [1, 2, 3, 4, 5], "_seq": pa.array([0, 0, 2, 0, 3], pa.int64())}
    )
    out = _latest_per_key(_Records(rows, _deletes([("k2", 1), ("k3", 2)])))
    # k1: the newer record; k2: deleted after its record; k3: re-inserted after the deletion.
    assert sorted(zip(out.column("key").to_pylist(), out.column("v").to_pylist(), strict=True)) == [
        ("k1", 3),
        ("k3", 5),
    ]


def test_latest_per_key_filters_to_wanted_keys() -> None:
    rows = pa.table({"key": ["a", "b"], "v": [1, 2], "_seq": pa.array([0, 0], pa.int64())})
    out = _latest_per_key(_Records(rows, _deletes([])), pa.array(["b", "zz"]))
    assert out.column("key").to_pylist() == ["b"]


_WRAPPED = pa.struct([("member0", pa.struct([("value", pa.int64())]))])
_STATS = pa.struct(
    [
        ("fileName", pa.string()),
        ("columnName", pa.string()),
        ("minValue", _WRAPPED),
        ("maxValue", _WRAPPED),
        ("valueCount", pa.int64()),
        ("nullCount", pa.int64()),
        ("totalSize", pa.int64()),
        ("totalUncompressedSize", pa.int64()),
        ("isDeleted", pa.bool_()),
    ]
)


def _stat(lo: int, hi: int, count: int, deleted: bool = False) -> dict[str, object]:
    return {
        "fileName": "f.log",
        "columnName": "c",
        "minValue": {"member0": {"value": lo}},
        "maxValue": {"member0": {"value": hi}},
        "valueCount": count,
        "nullCount": 1,
        "totalSize": 10,
        "totalUncompressedSize": 20,
        "isDeleted": deleted,
    }


def _stats_rows(entries: list[tuple[str, int, dict[str, object]]]) -> pa.Table:
    return pa.table(
        {
            "key": [e[0] for e in entries],
            "ColumnStatsMetadata": pa.array([e[2] for e in entries], _STATS),
            "_seq": pa.array([e[1] for e in entries], pa.int64()),
        }
    )


def test_column_stats_of_one_key_merge_and_tombstones_replace() -> None:
    rows = _stats_rows(
        [
            ("merged", 0, _stat(5, 9, 3)),
            ("merged", 1, _stat(2, 7, 4)),  # an appended log file: ranges widen, counts add up
            ("deleted", 0, _stat(1, 1, 1)),
            ("deleted", 1, _stat(0, 0, 0, deleted=True)),
            ("single", 0, _stat(4, 4, 1)),
        ]
    )
    out = {r["key"]: r["ColumnStatsMetadata"] for r in _merge_column_stats(rows).to_pylist()}
    assert set(out) == {"merged", "single"}
    merged = out["merged"]
    assert (merged["minValue"]["member0"]["value"], merged["maxValue"]["member0"]["value"]) == (2, 9)
    assert (merged["valueCount"], merged["nullCount"], merged["totalSize"], merged["totalUncompressedSize"]) == (
        7,
        2,
        20,
        40,
    )
    assert out["single"]["valueCount"] == 1


_TIGHT_STATS = pa.struct([*_STATS, ("isTightBound", pa.bool_())])


def test_column_stats_tight_records_replace_and_later_loose_ones_merge_onto_them() -> None:
    def tight(lo: int, hi: int, count: int, is_tight: bool = True, deleted: bool = False) -> dict[str, object]:
        return {**_stat(lo, hi, count, deleted), "isTightBound": is_tight}

    entries = [
        ("tight-last", 0, tight(1, 9, 5, is_tight=False)),
        ("tight-last", 1, tight(3, 4, 5)),  # partition statistics recomputed: replaces, counts not summed
        ("loose-after-tight", 0, tight(3, 4, 5)),
        ("loose-after-tight", 1, tight(0, 2, 2, is_tight=False)),  # merges onto the tight one
        ("deleted-last", 0, tight(1, 1, 1)),
        ("deleted-last", 1, tight(0, 0, 0, deleted=True)),
        ("live-after-delete", 0, tight(0, 0, 0, deleted=True)),
        ("live-after-delete", 1, tight(6, 8, 3, is_tight=False)),
    ]
    rows = pa.table(
        {
            "key": [e[0] for e in entries],
            "ColumnStatsMetadata": pa.array([e[2] for e in entries], _TIGHT_STATS),
            "_seq": pa.array([e[1] for e in entries], pa.int64()),
        }
    )
    out = {r["key"]: r["ColumnStatsMetadata"] for r in _merge_column_stats(rows).to_pylist()}
    assert set(out) == {"tight-last", "loose-after-tight", "live-after-delete"}

    def summary(key: str) -> tuple[object, ...]:
        s = out[key]
        return (s["minValue"]["member0"]["value"], s["maxValue"]["member0"]["value"], s["valueCount"], s["nullCount"])

    assert summary("tight-last") == (3, 4, 5, 1)
    assert summary("loose-after-tight") == (0, 4, 7, 2)
    assert summary("live-after-delete") == (6, 8, 3, 1)
