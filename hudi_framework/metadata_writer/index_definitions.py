"""The data table's index definitions (``.hoodie/.index_defs/index.json``), as Apache Hudi keeps them.

Apache Hudi records each metadata-table index it keeps (``column_stats`` with its indexed columns,
``record_index``, secondary indexes) there and points ``hoodie.table.index.defs.path`` at the file.
Writers here read an index's columns back from it, so every writer indexes the same columns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import StorageNotFoundError
from hudi_framework.table.properties import load_properties, update_properties

__all__ = [
    "INDEX_DEFS_PATH",
    "INDEX_DEFS_PATH_KEY",
    "index_definition",
    "remove_index_definition",
    "set_index_definition",
    "source_fields",
]

#: The data table property naming the file, relative to the base path.
INDEX_DEFS_PATH_KEY: Final = "hoodie.table.index.defs.path"
INDEX_DEFS_PATH: Final = ".hoodie/.index_defs/index.json"


def _load(storage: StorageBackend, properties: Mapping[str, str] | None = None) -> dict[str, Any]:
    props = properties if properties is not None else load_properties(storage)
    path = props.get(INDEX_DEFS_PATH_KEY) or INDEX_DEFS_PATH
    try:
        parsed = json.loads(storage.read(path))
    except (StorageNotFoundError, ValueError):
        return {"indexDefinitions": {}}
    return parsed if isinstance(parsed, dict) else {"indexDefinitions": {}}


def index_definition(
    storage: StorageBackend, name: str, properties: Mapping[str, str] | None = None
) -> Mapping[str, Any] | None:
    """The definition of the index ``name`` (``column_stats``...), or None (``properties``: the
    table's ``hoodie.properties`` when the caller has read them, else they are read)."""
    found = (_load(storage, properties).get("indexDefinitions") or {}).get(name)
    return found if isinstance(found, dict) else None


def source_fields(storage: StorageBackend, name: str, properties: Mapping[str, str] | None = None) -> list[str] | None:
    """The columns the index ``name`` covers, or None when it has no definition."""
    found = index_definition(storage, name, properties)
    if found is None:
        return None
    return [str(f) for f in found.get("sourceFields") or ()]


def set_index_definition(
    storage: StorageBackend,
    name: str,
    *,
    index_type: str,
    index_function: str,
    fields: Sequence[str],
    version: str,
    index_options: Mapping[str, str] | None = None,
) -> None:
    """Write (or replace) the definition of the index ``name``; the table property points at the file."""
    data = _load(storage)
    definitions = data.setdefault("indexDefinitions", {})
    definitions[name] = {
        "indexName": name,
        "indexType": index_type,
        "indexFunction": index_function,
        "sourceFields": list(fields),
        "indexOptions": dict(index_options or {}),
        "version": version,
    }
    _save(storage, data)


def remove_index_definition(storage: StorageBackend, name: str) -> None:
    """Remove the definition of the index ``name`` (nothing when it has none)."""
    data = _load(storage)
    if name in (data.get("indexDefinitions") or {}):
        del data["indexDefinitions"][name]
        _save(storage, data)


def _save(storage: StorageBackend, data: Mapping[str, Any]) -> None:
    path = load_properties(storage).get(INDEX_DEFS_PATH_KEY) or INDEX_DEFS_PATH
    storage.write(path, json.dumps(data, indent=2).encode("utf-8"))
    if load_properties(storage).get(INDEX_DEFS_PATH_KEY) != path:
        update_properties(storage, {INDEX_DEFS_PATH_KEY: path})
