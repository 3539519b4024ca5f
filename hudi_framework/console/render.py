"""Rich renderings of tables, timelines and file slices."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rich.table import Table

from hudi_framework.layout.file_group import FileSlice
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Instant


def table_summary(table: HudiTable) -> Table:
    """Key facts of a table and its ``hoodie.properties``."""
    cfg = table.config
    out = Table(title=f"Hudi table {cfg.name}", show_header=False)
    out.add_column("key", style="bold")
    out.add_column("value")
    rows = [
        ("base path", table.base_uri),
        ("type", cfg.table_type.value),
        ("table version", str(cfg.version)),
        ("timeline layout", str(cfg.timeline_layout_version)),
        ("record key fields", ",".join(cfg.record_key_fields)),
        ("partition fields", ",".join(cfg.partition_fields_raw) or "(non-partitioned)"),
        ("ordering fields", ",".join(cfg.ordering_fields) or "-"),
        ("key generator", cfg.key_generator_type),
        ("merge mode", cfg.effective_merge_mode.value),
        ("hive-style partitions", str(cfg.hive_style_partitioning).lower()),
        ("base file format", cfg.base_file_format),
        ("meta fields", "populated" if cfg.populate_meta_fields else "not populated"),
    ]
    latest = table.latest_commit()
    rows.append(("latest commit", str(latest) if latest else "-"))
    for key, value in rows:
        out.add_row(key, value)
    return out


def properties_table(props: dict[str, str]) -> Table:
    """All ``hoodie.properties`` keys."""
    out = Table(title="hoodie.properties")
    out.add_column("key", style="bold")
    out.add_column("value", overflow="fold")
    for key in sorted(props):
        out.add_row(key, props[key])
    return out


def timeline_table(instants: Iterable[Instant], *, title: str = "timeline") -> Table:
    """Instants with action, state and completion time."""
    out = Table(title=title)
    for col in ("requested", "action", "state", "completed"):
        out.add_column(col)
    for inst in instants:
        style = {"completed": "green", "inflight": "yellow", "requested": "cyan"}[inst.state.value]
        out.add_row(
            inst.requested_time,
            inst.action.value,
            f"[{style}]{inst.state.value}[/]",
            inst.completion_time or "",
        )
    return out


def history_table(rows: Iterable[Mapping[str, object]], *, title: str = "history") -> Table:
    """Rows of a timeline history (``hudi_framework.timeline.history``): one per instant."""
    columns = ("requested_time", "action", "operation", "num_files", "num_writes", "num_inserts", "num_updates",
               "num_deletes", "bytes_written", "completion_time")  # fmt: skip
    out = Table(title=title)
    for col in columns:
        out.add_column(col.replace("_", " "))
    for row in rows:
        out.add_row(*("" if row.get(col) is None else str(row[col]) for col in columns))
    return out


def slices_table(slices: Iterable[FileSlice]) -> Table:
    """File slices: partition, file id, base instant, base file, log files."""
    out = Table(title="latest file slices")
    for col in ("partition", "file id", "base instant", "base file", "log files"):
        out.add_column(col, overflow="fold")
    for s in sorted(slices, key=lambda s: (s.partition_path, s.file_id)):
        out.add_row(s.partition_path or "(root)", s.file_id, s.base_instant_time, s.base_file_name or "-",
                    "\n".join(s.log_file_names) or "-")  # fmt: skip
    return out
