"""Laws of the DFS file selection (plugins/hudi_sources_dfs/selector.py), for any landing history."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_sources_dfs.selector import LandedFile, select

_files = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 50)),  # (mtime, size): few mtimes, so ties are common
    max_size=25,
).map(
    lambda pairs: sorted(
        (LandedFile(f"f{n:02d}", size, 1_000 + mtime) for n, (mtime, size) in enumerate(pairs)),
        key=lambda f: (f.mtime_ms, f.key),
    )
)


@settings(max_examples=150, deadline=None)
@given(files=_files, limit=st.none() | st.integers(0, 120))
def test_consuming_takes_every_file_once_in_order_and_whole_mtime_groups(
    files: list[LandedFile], limit: int | None
) -> None:
    checkpoint: str | None = None
    taken: list[LandedFile] = []
    for _ in range(len(files) + 1):
        selection = select("json-dfs", files, checkpoint, limit)
        if not selection.files:
            assert selection.checkpoint == checkpoint
            break
        batch = list(selection.files)
        # Never a partial mtime group: every file sharing a taken time is in the batch.
        for mtime in {f.mtime_ms for f in batch}:
            assert {f.key for f in files if f.mtime_ms == mtime} <= {f.key for f in batch}
        # Within the limit, unless the batch is a single group that alone exceeds it.
        if limit is not None and len({f.mtime_ms for f in batch}) > 1:
            assert sum(f.size for f in batch) <= limit
        assert selection.checkpoint == str(max(f.mtime_ms for f in batch))
        taken += batch
        checkpoint = selection.checkpoint
    assert taken == files


@settings(max_examples=100, deadline=None)
@given(files=_files, cut=st.integers(1_000, 1_007))
def test_settled_files_are_a_prefix(files: list[LandedFile], cut: int) -> None:
    selection = select("json-dfs", files, None, None, settled_before_ms=cut)
    assert list(selection.files) == [f for f in files if f.mtime_ms < cut]
