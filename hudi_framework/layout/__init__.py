"""Data file layout: file names, partitions, file groups, file slices and the file-system view.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.contracts.partition_path import (
    DEFAULT_PARTITION_PATH,
    PartitionPathError,
    PartitionPathFormat,
    escape_path_name,
    unescape_path_name,
)
from hudi_framework.layout.discovery import METAFOLDER_NAME, TableListing, discover_partitions, list_table
from hudi_framework.layout.file_group import BaseFile, FileGroup, FileGroupId, FileSlice, LogFile
from hudi_framework.layout.fs_view import FileSystemView, check_base_file_formats
from hudi_framework.layout.naming import (
    BaseFileName,
    FileNameError,
    LogFileName,
    make_write_token,
    new_file_id,
    new_file_id_prefix,
    next_log_version,
    parse_data_file_name,
)
from hudi_framework.layout.partition_metadata import (
    PARTITION_METADATA_FILE,
    PartitionMetadata,
    read_partition_metadata,
    write_partition_metadata,
)

__all__ = [
    "DEFAULT_PARTITION_PATH",
    "METAFOLDER_NAME",
    "PARTITION_METADATA_FILE",
    "BaseFile",
    "BaseFileName",
    "FileGroup",
    "FileGroupId",
    "FileNameError",
    "FileSlice",
    "FileSystemView",
    "LogFile",
    "LogFileName",
    "PartitionMetadata",
    "PartitionPathError",
    "PartitionPathFormat",
    "TableListing",
    "check_base_file_formats",
    "discover_partitions",
    "escape_path_name",
    "list_table",
    "make_write_token",
    "new_file_id",
    "new_file_id_prefix",
    "next_log_version",
    "parse_data_file_name",
    "read_partition_metadata",
    "unescape_path_name",
    "write_partition_metadata",
]
