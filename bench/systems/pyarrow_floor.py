"""Plain pyarrow: what writing, reading and rewriting the same files costs with no table format.

``rewrite`` is the floor for any copy-on-write upsert: read every file, apply the batch with an
Arrow join (drop changed and deleted keys, append the new versions), write every file again.
``rewrite_by_file`` is the same floor one file at a time (the scaling section's, whose files are
sized like our file groups): its memory is one file's, not the table's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench.dataset import KEY, PARTITION, split_changes
from bench.step import Step, StepContext
from bench.systems import ours


def root(ctx: StepContext) -> str:
    """The hive-partitioned parquet files (``region=.../``), shared with the naive Spark upsert."""
    return str(ctx.work / "files")


def _write(table: pa.Table, root: str, file_rows: int | None = None) -> None:
    """Hive-partitioned files; at most ``file_rows`` rows each if given (else one file per partition)."""
    # write_to_dataset passes row_group_size on as max_rows_per_group, which must not exceed the file's rows.
    sized = {} if file_rows is None else {"max_rows_per_file": file_rows, "row_group_size": min(file_rows, 1 << 20)}
    pq.write_to_dataset(table, root, partition_cols=[PARTITION], existing_data_behavior="delete_matching", **sized)


def write(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    _write(base, root(ctx))
    return {"rows": base.num_rows}


def read(ctx: StepContext) -> dict[str, Any]:
    return {"rows": pq.read_table(root(ctx)).num_rows}


def rewrite(ctx: StepContext) -> dict[str, Any]:
    stored = pq.read_table(root(ctx))
    upserts, deletes = split_changes(ctx.inputs.read_changes())
    touched = pa.concat_arrays([upserts.column(KEY).combine_chunks(), deletes.column(KEY).combine_chunks()])
    kept = stored.filter(pc.invert(pc.is_in(stored.column(KEY), value_set=touched)))
    merged = pa.concat_tables([kept, upserts.select(kept.column_names).cast(kept.schema)])
    _write(merged, root(ctx))
    return {"rows": merged.num_rows}


def prepare(ctx: StepContext) -> None:
    _write(ctx.inputs.read_base(), root(ctx))


def _file_rows(ctx: StepContext) -> int:
    return ctx.inputs.scaling_shape().file_group_rows


def scaling_write(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    _write(base, root(ctx), _file_rows(ctx))
    files = sorted(Path(root(ctx)).rglob("*.parquet"))
    return {"rows": base.num_rows, "files": len(files), "largest_file_bytes": max(f.stat().st_size for f in files)}


def scaling_prepare(ctx: StepContext) -> None:
    _write(ctx.inputs.read_base(), root(ctx), _file_rows(ctx))


def rewrite_by_file(ctx: StepContext) -> dict[str, Any]:
    """The batch applied file by file: each file with a changed or deleted key is read, joined and
    written again (as a new file, the old one removed); new keys go to new files."""
    upserts, deletes = split_changes(ctx.inputs.read_changes())
    upsert_keys = upserts.column(KEY).combine_chunks()
    touched = pa.concat_arrays([upsert_keys, deletes.column(KEY).combine_chunks()])
    placed = np.zeros(upserts.num_rows, dtype=np.bool_)
    rewritten, largest_rows, largest_bytes, total = 0, 0, 0, 0
    for path in sorted(Path(root(ctx)).rglob("*.parquet")):
        stored = pq.read_table(path)  # one file: its partition column is in the directory name only
        hit = pc.is_in(stored.column(KEY), value_set=touched)
        if not pc.any(hit).as_py():
            total += stored.num_rows
            continue
        mine = np.asarray(pc.is_in(upsert_keys, value_set=stored.column(KEY)).to_numpy(zero_copy_only=False))
        placed |= mine
        kept = stored.filter(pc.invert(hit))
        merged = pa.concat_tables([kept, upserts.filter(pa.array(mine)).select(kept.column_names).cast(kept.schema)])
        out = path.with_name(f"{path.stem}-1.parquet")
        pq.write_table(merged, out)
        path.unlink()
        rewritten += 1
        total += merged.num_rows
        largest_rows, largest_bytes = max(largest_rows, merged.num_rows), max(largest_bytes, out.stat().st_size)
    new = upserts.filter(pa.array(~placed))
    # Beside the rewritten files: "delete_matching" would drop the partitions' other files.
    pq.write_to_dataset(
        new, root(ctx), partition_cols=[PARTITION], existing_data_behavior="overwrite_or_ignore",
        basename_template="new-{i}.parquet",
    )  # fmt: skip
    return {
        "rows": total + new.num_rows,
        "files": rewritten,
        "file_groups_rewritten": rewritten,
        "largest_file_rows": largest_rows,
        "largest_file_bytes": largest_bytes,
    }


def read_table_files(ctx: StepContext) -> dict[str, Any]:
    """Plain pyarrow reading our copy-on-write table's base files (all 16 columns, meta columns
    included): the floor the issue sets our snapshot read against, "reading the same files". The
    state is a single bulk insert, so every parquet file under the table is a latest base file."""
    table = ctx.work / "table"
    files = sorted(str(p) for p in table.rglob("*.parquet") if ".hoodie" not in p.parts)
    return {"rows": pq.read_table(files).num_rows, "files": len(files)}


STEPS = [
    Step("pyarrow", "bulk_insert", write),
    Step("pyarrow", "cow_read", read, prepare),
    # Shares ours' bulk-inserted copy-on-write state (the same prepare object).
    Step("pyarrow", "cow_read_table_files", read_table_files, ours.load_cow),
    Step("pyarrow", "cow_upsert", rewrite, prepare),
]

#: The scaling section (inputs from :func:`bench.dataset.generate_scaling`): files of our file groups' size.
SCALING_STEPS = [
    Step("pyarrow", "scale_bulk_insert", scaling_write),
    Step("pyarrow", "scale_cow_upsert", rewrite_by_file, scaling_prepare),
    Step("pyarrow", "scale_cow_read", read, scaling_prepare),
]
