"""The timeline: instants, their states and files, and commit metadata.

Read a table's timeline with :meth:`Timeline.load`; write instants with :class:`TimelineWriter`.

Internal package: not a stable API; import from the public modules (docs/api.md).

The names are imported on first use (PEP 562): Spark's planner processes import this package
fresh and pay only for what they use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from hudi_framework.timeline.avro_container import AvroRecord, AvroSchemaName, read_container, write_container
    from hudi_framework.timeline.instant import COMPLETES_AS, WRITE_ACTIONS, Action, Instant, State
    from hudi_framework.timeline.instant_time import InstantTimeGenerator, format_instant_time, parse_instant_time
    from hudi_framework.timeline.metadata import (
        CommitMetadata,
        ReplaceCommitMetadata,
        RuntimeStats,
        WriteStat,
        decode_commit_metadata,
        encode_commit_metadata,
    )
    from hudi_framework.timeline.naming import LAYOUT_V1, LAYOUT_V2, instant_file_name, parse_instant_file_name
    from hudi_framework.timeline.timeline import Timeline, timeline_dir
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = [
    "COMPLETES_AS",
    "LAYOUT_V1",
    "LAYOUT_V2",
    "WRITE_ACTIONS",
    "Action",
    "AvroRecord",
    "AvroSchemaName",
    "CommitMetadata",
    "Instant",
    "InstantTimeGenerator",
    "ReplaceCommitMetadata",
    "RuntimeStats",
    "State",
    "Timeline",
    "TimelineWriter",
    "WriteStat",
    "decode_commit_metadata",
    "encode_commit_metadata",
    "format_instant_time",
    "instant_file_name",
    "parse_instant_file_name",
    "parse_instant_time",
    "read_container",
    "timeline_dir",
    "write_container",
]

#: Public name -> the module it is imported from on first access (the same as the imports above;
#: tests/unit/test_public_api.py checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "Action": "hudi_framework.timeline.instant",
    "AvroRecord": "hudi_framework.timeline.avro_container",
    "AvroSchemaName": "hudi_framework.timeline.avro_container",
    "COMPLETES_AS": "hudi_framework.timeline.instant",
    "CommitMetadata": "hudi_framework.timeline.metadata",
    "Instant": "hudi_framework.timeline.instant",
    "InstantTimeGenerator": "hudi_framework.timeline.instant_time",
    "LAYOUT_V1": "hudi_framework.timeline.naming",
    "LAYOUT_V2": "hudi_framework.timeline.naming",
    "ReplaceCommitMetadata": "hudi_framework.timeline.metadata",
    "RuntimeStats": "hudi_framework.timeline.metadata",
    "State": "hudi_framework.timeline.instant",
    "Timeline": "hudi_framework.timeline.timeline",
    "TimelineWriter": "hudi_framework.timeline.transitions",
    "WRITE_ACTIONS": "hudi_framework.timeline.instant",
    "WriteStat": "hudi_framework.timeline.metadata",
    "decode_commit_metadata": "hudi_framework.timeline.metadata",
    "encode_commit_metadata": "hudi_framework.timeline.metadata",
    "format_instant_time": "hudi_framework.timeline.instant_time",
    "instant_file_name": "hudi_framework.timeline.naming",
    "parse_instant_file_name": "hudi_framework.timeline.naming",
    "parse_instant_time": "hudi_framework.timeline.instant_time",
    "read_container": "hudi_framework.timeline.avro_container",
    "timeline_dir": "hudi_framework.timeline.timeline",
    "write_container": "hudi_framework.timeline.avro_container",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
