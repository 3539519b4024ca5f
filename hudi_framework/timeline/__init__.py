"""The timeline: instants, their states and files, and commit metadata.

Read a table's timeline with :meth:`Timeline.load`; write instants with :class:`TimelineWriter`.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

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
