"""Partition paths: from partition values to a relative path and back.

Java builds a partition path in ``KeyGenUtils.getPartitionPath`` (hudi-format.md section 8): for each
partition field, in order, render the value as a string; null or empty becomes
``__HIVE_DEFAULT_PARTITION__``; with ``hoodie.datasource.write.partitionpath.urlencode`` the value is
escaped Hive style (``PartitionPathEncodeUtils.escapePathName``: listed characters become ``%XX``,
upper-case hex); with ``hoodie.datasource.write.hive_style_partitioning`` it is prefixed with
``<field>=``; the fields are joined with ``/``. A non-partitioned table has the partition path ``""``.

Two encoders give identical results: :meth:`PartitionPathFormat.encode` for one record and
:meth:`PartitionPathFormat.encode_arrays` for whole pyarrow columns (the write path encodes millions of
rows, so that one runs in pyarrow compute kernels, never a Python loop per row).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.reserved_paths import RESERVED_SEGMENT_RE2, path_problem
from hudi_framework.errors import PartitionPathError as PartitionPathError  # re-exported
from hudi_framework.errors import UnsafePartitionPathError

__all__ = [
    "DEFAULT_PARTITION_PATH",
    "DEPRECATED_DEFAULT_PARTITION_PATH",
    "PartitionPathFormat",
    "check_partition_path",
    "escape_path_name",
    "render_partition_value",
    "unescape_path_name",
]

#: What Java writes for a null or empty partition value (``PartitionPathEncodeUtils``).
DEFAULT_PARTITION_PATH = "__HIVE_DEFAULT_PARTITION__"
#: What Hudi before 0.12 wrote instead; Java readers still recognise it, this module does not.
DEPRECATED_DEFAULT_PARTITION_PATH = "default"

# Java's charToEscape: every char below ' ' (0x00 included: the Java loop starts at 0), the
# listed punctuation and DEL.
_ESCAPED_CHARS: tuple[str, ...] = (
    *(chr(c) for c in range(0x20)),
    '"', "#", "%", "'", "*", "/", ":", "=", "?", "\\", "\x7f", "{", "[", "]", "^",
)  # fmt: skip
_ESCAPED_SET = frozenset(_ESCAPED_CHARS)
# RE2 (pyarrow) and Python both read this class the same way.
_NEEDS_ESCAPE_RE2 = r"[\x00-\x1f\"#%'*/:=?\\\x7f{\[\]^]"
# Java's Integer.parseInt(s, 16) on two characters accepts an optional sign, so "%+1" decodes to
# \x01 and "%-0" to \x00 in Java's unescapePathName; mirror it for byte-identical decoding.
_JAVA_HEX2_RE = re.compile(r"[0-9a-fA-F]{2}|\+[0-9a-fA-F]|-0")


def escape_path_name(value: str) -> str:
    """Hive-style escape one partition value (Java ``PartitionPathEncodeUtils.escapePathName``).

    Null/empty handling is not done here; see :func:`render_partition_value`.
    """
    if not any(c in _ESCAPED_SET for c in value):
        return value
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED_SET else c for c in value)


def unescape_path_name(path: str) -> str:
    """Undo :func:`escape_path_name` exactly as Java ``unescapePathName`` does.

    A ``%`` not followed by two characters that Java's ``Integer.parseInt(_, 16)`` reads as a
    non-negative number is kept literally.
    """
    if "%" not in path:
        return path
    out: list[str] = []
    i, n = 0, len(path)
    while i < n:
        c = path[i]
        # Java requires i + 2 < length, i.e. both hex characters present.
        if c == "%" and i + 2 < n and _JAVA_HEX2_RE.fullmatch(path[i + 1 : i + 3]):
            out.append(chr(int(path[i + 1 : i + 3], 16)))
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def render_partition_value(value: object) -> str | None:
    """Render one partition field value as Java's key generators do, before escaping.

    Supported: ``str``, ``bool`` (``true``/``false``), ``int`` and ``datetime.date`` (ISO
    ``yyyy-MM-dd``, as Java renders Avro ``date``). Other types (floats, decimals, timestamps)
    render differently in Java and must be rendered by the key generator first.

    Returns:
        The string, or None for a null or empty value (which encodes as the default partition).

    Raises:
        PartitionPathError: The type has no unambiguous rendering here.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value or None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    raise PartitionPathError(repr(value), f"render {type(value).__name__} values to str before encoding")


def check_partition_path(path: str) -> str:
    """Reject a partition path with a segment no listing would find it under (``layout.reserved``).

    Java rejects ``..`` segments (``PartitionPathEncodeUtils.validateNoPathTraversal``); empty and
    ``.`` segments are rejected too because storage keys cannot hold them, and ``.hoodie`` and
    ``.hoodie_partition_metadata*`` because listings skip or misread them.

    Returns:
        ``path`` unchanged.

    Raises:
        PartitionPathError: Naming the segment.
    """
    problem = path_problem(path) if path else None
    if problem is not None:
        raise PartitionPathError(path, f"path segment {problem[0]!r} is {problem[1]}")
    return path


def _unsafe_value(field: str, value: str, text: str) -> UnsafePartitionPathError:
    """The error for a value whose rendering ``text`` (this field's part of the path) is refused."""
    problem = path_problem(text)
    segment, reason = problem if problem is not None else (text, "refused")
    return UnsafePartitionPathError(field, value, text, segment, reason)


@dataclass(frozen=True, slots=True)
class PartitionPathFormat:
    """How a table turns partition values into a path (three ``hoodie.properties`` settings).

    Attributes:
        fields: Partition field names in order (``hoodie.table.partition.fields`` without any
            ``:<type>`` suffix); empty for a non-partitioned table.
        hive_style: ``hoodie.datasource.write.hive_style_partitioning``.
        url_encode: ``hoodie.datasource.write.partitionpath.urlencode``.
    """

    fields: tuple[str, ...] = ()
    hive_style: bool = False
    url_encode: bool = False

    @property
    def is_partitioned(self) -> bool:
        """Whether the table has partition fields."""
        return bool(self.fields)

    # ----------------------------------------------------------------- scalar path
    def encode(self, values: Sequence[object]) -> str:
        """Encode one record's partition values (one per field) into a relative partition path.

        Raises:
            PartitionPathError: Wrong number of values, or an unsupported value type.
            UnsafePartitionPathError: A value makes a segment :func:`check_partition_path` refuses.
        """
        if len(values) != len(self.fields):
            raise PartitionPathError(
                repr(tuple(values)), f"expected {len(self.fields)} values for fields {self.fields}"
            )
        parts = []
        for field, value in zip(self.fields, values, strict=True):
            rendered = render_partition_value(value)
            text = DEFAULT_PARTITION_PATH if rendered is None else rendered
            if self.url_encode:
                text = escape_path_name(text)
            text = f"{field}={text}" if self.hive_style else text
            # Each field renders non-empty text, so a bad segment of the path lies in one field's part.
            if path_problem(text) is not None:
                raise _unsafe_value(field, DEFAULT_PARTITION_PATH if rendered is None else rendered, text)
            parts.append(text)
        return "/".join(parts)

    def decode(self, path: str) -> tuple[str | None, ...]:
        """Split a partition path back into one value per field.

        ``__HIVE_DEFAULT_PARTITION__`` decodes to None (so an empty value also comes back as None).
        Values are unescaped only when ``url_encode`` is set. Without url-encoding a value may itself
        contain ``/`` (timestamp key generators write ``2024/01/15``): with one field the whole path is
        the value; with several, hive-style prefixes locate the fields, and a non-hive path must have
        exactly one segment per field.

        Raises:
            PartitionPathError: The path does not fit the fields.
        """
        if not self.fields:
            if path:
                raise PartitionPathError(path, "a non-partitioned table has the partition path ''")
            return ()
        raws = self._split_hive(path) if self.hive_style else self._split_plain(path)
        out: list[str | None] = []
        for raw in raws:
            value = unescape_path_name(raw) if self.url_encode else raw
            out.append(None if value == DEFAULT_PARTITION_PATH else value)
        return tuple(out)

    def _split_plain(self, path: str) -> list[str]:
        if len(self.fields) == 1:
            return [path]
        segments = path.split("/")
        if len(segments) != len(self.fields):
            raise PartitionPathError(path, f"expected {len(self.fields)} segments for fields {self.fields}")
        return segments

    def _split_hive(self, path: str) -> list[str]:
        segments = path.split("/")
        values: list[list[str]] = []
        for seg in segments:
            field_index = len(values)
            if field_index < len(self.fields) and seg.startswith(f"{self.fields[field_index]}="):
                values.append([seg[len(self.fields[field_index]) + 1 :]])
            elif values:
                # A '/' inside a value that was not url-encoded: glue it back to the current value.
                values[-1].append(seg)
            else:
                raise PartitionPathError(path, f"expected it to start with {self.fields[0]}=")
        if len(values) != len(self.fields):
            raise PartitionPathError(path, f"expected hive-style segments for fields {self.fields}")
        return ["/".join(v) for v in values]

    # ----------------------------------------------------------------- vectorised path
    def encode_arrays(self, columns: Sequence[pa.Array | pa.ChunkedArray]) -> pa.Array:
        """Encode whole columns (one per field, equal lengths) into a string array of partition paths.

        Same result, row for row, as :meth:`encode`. Accepted column types: string, large string,
        integers, boolean, date32/date64 and dictionaries of those; others must be rendered to strings
        by the key generator first. Runs in pyarrow compute kernels, never a Python loop per row. A
        low-cardinality column (judged on a sample; the usual case) is dictionary-encoded, its
        distinct values are rendered, escaped and checked once, and the rows gathered with ``take``;
        a high-cardinality column is rendered row-wise, escaping only the rows that need it.

        Raises:
            PartitionPathError: Wrong number of columns, or an unsupported type.
            UnsafePartitionPathError: A value makes a segment :func:`check_partition_path` refuses.
        """
        if len(columns) != len(self.fields):
            raise PartitionPathError(
                f"<{len(columns)} columns>", f"expected {len(self.fields)} columns for fields {self.fields}"
            )
        if not columns:
            raise PartitionPathError("", "a non-partitioned table has no partition columns to encode")
        parts = [self._encode_column(field, column) for field, column in zip(self.fields, columns, strict=True)]
        return parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, "/")

    def _encode_column(self, field: str, column: pa.Array | pa.ChunkedArray) -> pa.Array:
        """One field's path segment(s) for every row."""
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type) and not _few_distinct(column):
            return self._render(field, _as_string_column(column))
        # Few distinct values (the usual case): render each once, then gather the rows with take.
        encoded = column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column)
        # One extra trailing entry for the null rows to point at.
        distinct = pa.concat_arrays([_as_string_column(encoded.dictionary), pa.nulls(1, pa.string())])
        return pc.take(self._render(field, distinct), pc.fill_null(encoded.indices, len(distinct) - 1))

    def _render(self, field: str, values: pa.Array) -> pa.Array:
        """Default value, escaping, hive prefix and the segment check, on utf8 values."""
        empty = pc.or_kleene(pc.is_null(values), pc.equal(pc.binary_length(values), 0))
        text = pc.if_else(empty, pa.scalar(DEFAULT_PARTITION_PATH, pa.string()), values)
        if self.url_encode:
            text = _escape_column(text)
        if self.hive_style:
            text = pc.binary_join_element_wise(pa.scalar(f"{field}=", pa.string()), text, "")
        # Segments never span fields (each field renders non-empty text), so checking per field finds
        # every refused segment of the joined path. Only text holding "/" or starting with "." can
        # have one; the regex runs on those alone.
        suspect = pc.or_(pc.match_substring(text, "/"), pc.starts_with(text, "."))
        if pc.any(suspect).as_py():
            candidates = pc.filter(text, suspect)
            bad = pc.match_substring_regex(candidates, RESERVED_SEGMENT_RE2)
            if pc.any(bad).as_py():
                value = pc.filter(pc.filter(values, suspect), bad)[0].as_py() or DEFAULT_PARTITION_PATH
                raise _unsafe_value(field, value, pc.filter(candidates, bad)[0].as_py())
        return text


def _few_distinct(column: pa.Array, sample: int = 4096) -> bool:
    """Whether a column looks low-cardinality, judged on a sample (dictionary encoding pays off)."""
    if len(column) <= sample:
        return True
    step = len(column) // sample
    picked = column.take(pa.array(range(0, step * sample, step), pa.int64()))
    return len(pc.unique(picked)) <= sample // 8


def _as_string_column(values: pa.Array) -> pa.Array:
    """Cast partition values to utf8, refusing types whose Java rendering differs from pyarrow's."""
    typ = values.type
    ok = (
        pa.types.is_string(typ)
        or pa.types.is_large_string(typ)
        or pa.types.is_integer(typ)
        or pa.types.is_boolean(typ)
        or pa.types.is_date(typ)
    )
    if not ok:
        raise PartitionPathError(str(typ), "render this column type to strings before encoding")
    return pc.cast(values, pa.string())


def _escape_column(text: pa.Array) -> pa.Array:
    """Vectorised :func:`escape_path_name`; only values holding an escapable char are rewritten."""
    needs = pc.fill_null(pc.match_substring_regex(text, _NEEDS_ESCAPE_RE2), False)
    if not pc.any(needs).as_py():
        return text
    subset = pc.filter(text, needs)
    # "%" first, so the "%" of earlier replacements is never escaped again.
    for ch in ("%", *(c for c in _ESCAPED_CHARS if c != "%")):
        subset = pc.replace_substring(subset, ch, f"%{ord(ch):02X}")
    return pc.replace_with_mask(text, needs, subset)
