"""Hypothesis strategies for commit metadata."""

from __future__ import annotations

from hypothesis import strategies as st

from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata, RuntimeStats, WriteStat

longs = st.integers(min_value=-(2**63), max_value=2**63 - 1)
ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)


def opt(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.none() | strategy


runtime_stats = st.builds(
    RuntimeStats, total_scan_time=opt(longs), total_create_time=opt(longs), total_upsert_time=opt(longs)
)

_LONG_FIELDS = [
    "num_writes", "num_deletes", "num_update_writes", "total_write_bytes", "total_write_errors",
    "total_log_records", "total_log_files", "total_updated_records_compacted", "num_inserts",
    "total_log_blocks", "total_corrupt_log_block", "total_rollback_blocks", "file_size_in_bytes",
    "log_offset", "min_event_time", "max_event_time", "total_log_files_compacted",
    "total_log_read_time_ms", "total_log_size_compacted", "num_updates",
]  # fmt: skip
_STR_FIELDS = ["file_id", "path", "prev_commit", "partition_path", "base_file", "prev_base_file", "temp_path"]

write_stats = st.builds(
    WriteStat,
    **{f: opt(longs) for f in _LONG_FIELDS},
    **{f: opt(texts) for f in _STR_FIELDS},
    log_version=opt(ints),
    log_files=opt(st.lists(texts, max_size=3)),
    cdc_stats=opt(st.dictionaries(texts, longs, max_size=2)),
    runtime_stats=opt(runtime_stats),
)


def commit_metadata(*, json_shape: bool) -> st.SearchStrategy[CommitMetadata]:
    """Commit metadata; ``json_shape`` restricts to values v6 JSON can carry (no top-level nulls)."""
    stats_map = st.dictionaries(texts, st.lists(write_stats, max_size=3), max_size=3)
    extra = st.dictionaries(texts, texts, max_size=3)
    ops = st.sampled_from(["UPSERT", "INSERT", "COMPACT", "INSERT_OVERWRITE"])
    replace_ids = st.dictionaries(texts, st.lists(texts, max_size=3), max_size=3)
    common = {
        "partition_to_write_stats": stats_map if json_shape else opt(stats_map),
        "compacted": st.booleans() if json_shape else opt(st.booleans()),
        "extra_metadata": extra if json_shape else opt(extra),
        "version": st.none() if json_shape else opt(ints),
        "operation_type": opt(ops),
    }
    plain = st.builds(CommitMetadata, **common)
    replace = st.builds(
        ReplaceCommitMetadata,
        **common,
        partition_to_replace_file_ids=replace_ids if json_shape else opt(replace_ids),
    )
    return plain | replace
