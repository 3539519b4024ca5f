"""The ``hoodie.properties`` codec and its crash-safe update protocol.

The file is a ``java.util.Properties`` file. We *read* it with Java's rules (escapes such as ``\\:``
that Java writes inside schemas, continuation lines, ``\\uXXXX``), but *write* plain ``key=value``
lines because hudi-rs splits each line on the first ``=`` without unescaping (format section 1.1).

Updates follow Apache Hudi's protocol (format section 1.2): write ``hoodie.properties.backup``,
delete the main file, write the new main file, verify it, delete the backup. Readers fall back to the
backup while the main file is missing or damaged.
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from collections.abc import Mapping

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import StorageNotFoundError, TableConfigCorruptError, TableNotFoundError

PROPERTIES_KEY = ".hoodie/hoodie.properties"
BACKUP_KEY = ".hoodie/hoodie.properties.backup"
CHECKSUM = "hoodie.table.checksum"
TABLE_NAME = "hoodie.table.name"
DATABASE_NAME = "hoodie.database.name"

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def table_checksum(database: str | None, table: str) -> int:
    """CRC32 of ``"<database>.<table>"`` (database ``""`` when absent), as Java computes it."""
    return zlib.crc32(f"{database or ''}.{table}".encode())


def _logical_lines(text: str) -> list[str]:
    """Join continuation lines (odd number of trailing backslashes), drop comments and blanks."""
    out: list[str] = []
    pending: str | None = None
    # Java ends lines only at \n, \r or \r\n (str.splitlines would also split at \x1c-\x1e, \x85...).
    for raw in re.split(r"\r\n|\r|\n", text):
        line = raw.lstrip(" \t\f")
        if pending is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        continued = trailing % 2 == 1
        body = line[:-1] if continued else line
        pending = body if pending is None else pending + body
        if not continued:
            out.append(pending)
            pending = None
    if pending is not None:
        out.append(pending)
    return out


def _unescape(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c)
            i += 1
            continue
        nxt = s[i + 1]
        if nxt == "u" and i + 6 <= len(s):
            try:
                out.append(chr(int(s[i + 2 : i + 6], 16)))
                i += 6
                continue
            except ValueError:
                pass
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    # Re-join surrogate pairs produced by \uXXXX escapes of non-BMP characters.
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def _split_key_value(line: str) -> tuple[str, str]:
    # The key ends at the first unescaped '=', ':' or whitespace; then optional whitespace, an
    # optional '=' or ':', and more whitespace.
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key = line[:i]
    j = i
    while j < len(line) and line[j] in " \t\f":
        j += 1
    if j < len(line) and line[j] in "=:":
        j += 1
        while j < len(line) and line[j] in " \t\f":
            j += 1
    return _unescape(key), _unescape(line[j:])


# A line without a backslash has no escapes: key up to the first separator, then the separator and
# its surrounding whitespace (the same split as _split_key_value, without per-character Python).
_PLAIN_LINE = re.compile(r"([^=: \t\f]*)[ \t\f]*(?:[=:][ \t\f]*)?(.*)", re.DOTALL)


def _parse_line(line: str) -> tuple[str, str]:
    if "\\" in line:
        return _split_key_value(line)
    match = _PLAIN_LINE.match(line)
    assert match is not None  # every group is optional: the pattern matches any string
    return match.group(1), match.group(2)


def parse_properties(data: bytes) -> dict[str, str]:
    """Parse a Java properties file (ISO-8859-1, as Java reads it)."""
    text = data.decode("latin-1")
    return dict(_parse_line(line) for line in _logical_lines(text))


def _escape_value(value: str) -> str:
    # Plain text stays plain so hudi-rs reads it back unchanged; only what Java would misread is
    # escaped (and such values are then unreadable by hudi-rs, which we accept for non-ASCII).
    out: list[str] = []
    for idx, ch in enumerate(value):
        if ch == "\\":
            out.append("\\\\")
        elif ch in "\n\r\t\f":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f"}[ch])
        elif idx == 0 and ch == " ":
            out.append("\\ ")
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif ord(ch) > 0xFFFF:
            # Java strings are UTF-16: non-BMP characters are escaped as a surrogate pair.
            code = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        elif ord(ch) > 0x7E:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def render_properties(props: Mapping[str, str], *, now: dt.datetime | None = None) -> bytes:
    """Render ``key=value`` lines, sorted, with the checksum last (as Java puts it)."""
    stamp = (now or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    lines = [f"#Updated at {stamp}", "#Written by hudi_framework"]
    for key in sorted(k for k in props if k != CHECKSUM):
        lines.append(f"{key}={_escape_value(props[key])}")
    if CHECKSUM in props:
        lines.append(f"{CHECKSUM}={props[CHECKSUM]}")
    return ("\n".join(lines) + "\n").encode("latin-1")


def with_checksum(props: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``props`` with ``hoodie.table.checksum`` set from the database and table names."""
    out = dict(props)
    out[CHECKSUM] = str(table_checksum(out.get(DATABASE_NAME), out[TABLE_NAME]))
    return out


def validate_properties(props: Mapping[str, str]) -> str | None:
    """Return why ``props`` is unusable, or None when it is fine."""
    if TABLE_NAME not in props or not props[TABLE_NAME]:
        return f"missing {TABLE_NAME}"
    if "hoodie.table.version" not in props and "hoodie.table.type" not in props:
        return "missing hoodie.table.version and hoodie.table.type (truncated?)"
    if CHECKSUM in props:
        expected = table_checksum(props.get(DATABASE_NAME), props[TABLE_NAME])
        if props[CHECKSUM].strip() != str(expected):
            return f"checksum {props[CHECKSUM]!r} does not match {expected} (crc32 of database.table)"
    return None


def _try_read(storage: StorageBackend, key: str) -> tuple[dict[str, str] | None, str | None]:
    """(properties, None) when usable; (None, reason) when damaged; (None, None) when absent."""
    try:
        data = storage.read(key)
    except StorageNotFoundError:
        return None, None
    if not data.strip():
        return None, "empty file"
    try:
        props = parse_properties(data)
    except Exception as e:  # any decode failure is damage, reported with the file name below
        return None, f"unparseable: {e}"
    reason = validate_properties(props)
    return (None, reason) if reason else (props, None)


def load_properties(storage: StorageBackend, *, repair: bool = False) -> dict[str, str]:
    """Read ``hoodie.properties``, falling back to the backup as Apache Hudi does.

    Args:
        storage: Backend rooted at the table base path.
        repair: When the main file is missing or damaged and the backup is good, restore the main
            file from the backup (needs write access).

    Raises:
        TableNotFoundError: Neither file exists.
        TableConfigCorruptError: Naming the file(s) and why they are unusable.
    """
    props, main_problem = _try_read(storage, PROPERTIES_KEY)
    if props is not None:
        return props
    backup, backup_problem = _try_read(storage, BACKUP_KEY)
    if backup is not None:
        if repair:
            storage.write(PROPERTIES_KEY, render_properties(backup))
            storage.delete(BACKUP_KEY)
        return backup
    if main_problem is None and backup_problem is None:
        raise TableNotFoundError(storage.root_uri)
    reasons = []
    if main_problem:
        reasons.append(f"{PROPERTIES_KEY}: {main_problem}")
    else:
        reasons.append(f"{PROPERTIES_KEY}: missing")
    reasons.append(f"{BACKUP_KEY}: {backup_problem or 'missing'}")
    raise TableConfigCorruptError(storage.uri(PROPERTIES_KEY), "; ".join(reasons))


def create_properties(storage: StorageBackend, props: Mapping[str, str]) -> dict[str, str]:
    """Write a new table's ``hoodie.properties`` exactly once (atomic create).

    Raises:
        PreconditionFailedError: A table config already exists.
    """
    final = with_checksum(props)
    storage.put_if_absent(PROPERTIES_KEY, render_properties(final))
    return final


def update_properties(storage: StorageBackend, updates: Mapping[str, str | None]) -> dict[str, str]:
    """Apply ``updates`` (None deletes a key) with the backup protocol.

    Raises:
        TableConfigCorruptError: The rewritten file did not verify; the backup is kept for recovery.
    """
    current = load_properties(storage, repair=True)
    new = dict(current)
    for key, value in updates.items():
        if value is None:
            new.pop(key, None)
        else:
            new[key] = value
    new = with_checksum(new)
    storage.write(BACKUP_KEY, render_properties(current))
    storage.delete(PROPERTIES_KEY)
    storage.write(PROPERTIES_KEY, render_properties(new))
    reread, problem = _try_read(storage, PROPERTIES_KEY)
    if reread is None or reread.get(CHECKSUM) != new[CHECKSUM]:
        raise TableConfigCorruptError(storage.uri(PROPERTIES_KEY), f"verification after update failed: {problem}")
    storage.delete(BACKUP_KEY)
    return new
