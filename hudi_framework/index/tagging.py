"""Tagging incoming records with their current location: the index flow, run in-process.

:func:`tag_locations` is the local engine's whole index step (plan, look up every file, join).
:func:`apply_locations` is the final join alone; it defines the semantics a distributed engine
must reproduce when it runs the lookups elsewhere:

* A non-global index matches on ``(record key, partition path)``; a global one on the key only.
* A key found in several file groups (inserts keep duplicate keys) tags its record once per file
  group, as Java's left outer join of the records with the found locations does, so an update or
  delete reaches every copy. A global index that updates partition paths settles a key's move per
  key instead: its location is the file group with the greatest instant time, then file id.
* Global index, key found in another partition than the incoming record's:
  ``update_partition_path=True`` keeps the incoming ``_hoodie_partition_path``, so the writer
  deletes the key at the location and inserts it in the new partition; ``False`` rewrites
  ``_hoodie_partition_path`` to the location's partition, so the record updates the existing
  file group (Apache Hudi's ``tagAsNewRecordIfNeeded`` / ``hoodie.*.update.partition.path``).

After tagging, the writer's rule is uniform: no location -> insert into ``_hoodie_partition_path``;
location in the same partition -> update that file group; location elsewhere -> delete there and
insert into ``_hoodie_partition_path``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import to_numpy
from hudi_framework.contracts.index import (
    LOCATION_COLUMNS,
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    LOOKUP_SCHEMA,
    PARTITION_PATH,
    RECORD_KEY,
    IndexedFile,
    LookupTask,
    RecordIndex,
)
from hudi_framework.contracts.indexing.file_lookup import empty_locations, read_key_range, virtual_key_lookup
from hudi_framework.contracts.indexing.key_arrays import as_key_array
from hudi_framework.contracts.indexing.planning import distinct_partitions, incoming_columns
from hudi_framework.contracts.keyed_index import KeyedIndex, KeyLocator
from hudi_framework.index.keyed import keyed_lookup, live_file_groups
from hudi_framework.index.log_keys import log_locations
from hudi_framework.layout.file_group import FileSlice

if TYPE_CHECKING:
    from hudi_framework.contracts.index import KeyFactsSource
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.storage import StorageBackend

#: Helper column while deduplicating locations; the double underscore keeps it clear of user columns.
_MATCH: Final = "__hudi_index_match"


def indexed_file(file_slice: FileSlice) -> IndexedFile | None:
    """The slice's base file as an index input, or None for a slice without one (log-only file groups).

    Bloom and simple indexes look only at base files, as Apache Hudi's do: inserts always start a
    base file, so every key of a file group is in its latest base file or its logs.
    """
    base = file_slice.base_file
    key = file_slice.base_file_key
    if base is None or key is None:
        return None
    return IndexedFile(file_slice.partition_path, file_slice.file_id, base.instant_time, key)


def indexed_files(files: Iterable[IndexedFile | FileSlice]) -> list[IndexedFile]:
    """Index inputs from file slices (slices without a base file are skipped) or indexed files."""
    out = []
    for item in files:
        indexed = indexed_file(item) if isinstance(item, FileSlice) else item
        if indexed is not None:
            out.append(indexed)
    return out


def tag_locations(
    index: RecordIndex,
    incoming: pa.Table,
    files: Iterable[IndexedFile | FileSlice],
    storage: StorageBackend,
    *,
    keygen: KeyGenerator | None = None,
    locator: KeyLocator | None = None,
    metadata: KeyFactsSource | None = None,
) -> pa.Table:
    """Tag incoming records with the file group holding each key, running every step in-process.

    Args:
        index: The configured index.
        incoming: Records with ``_hoodie_record_key`` and ``_hoodie_partition_path`` (strings, no
            nulls); other columns are carried through.
        files: The latest file slices (or indexed base files) of the table.
        storage: The backend rooted at the table base path.
        keygen: For tables without meta fields only: base files store no record keys, so each
            lookup computes them with this key generator instead of calling ``index.lookup``.
        metadata: Where the metadata table may stand in for footers (key ranges before planning,
            bloom filters attached to the tasks); see :mod:`hudi_framework.metadata.index_source`.
        locator: For a :class:`~hudi_framework.contracts.keyed_index.KeyedIndex`: the table's key
            map (``hudi_framework.metadata.record_index_locator.locator_for``); the keys are looked
            up there and no base file is opened. None: the index's file-based lookups.

    Returns:
        ``incoming`` in the same row order, plus ``_hoodie_location_partition``,
        ``_hoodie_location_file_id`` and ``_hoodie_location_instant`` (``large_string``, null for
        new keys); see the module docstring for ``_hoodie_partition_path`` with global indexes.

    Raises:
        RecordIndexError: Bad incoming columns, or a base file without record keys.
    """
    files = list(files)
    if isinstance(index, KeyedIndex) and locator is not None:
        located = keyed_lookup(index, locator, incoming.column(RECORD_KEY), live_file_groups(files))
        return apply_locations(
            incoming, located, is_global=index.is_global, update_partition_path=index.update_partition_path
        )
    relevant = index.relevant_files(distinct_partitions(incoming), indexed_files(files))

    def with_range(file: IndexedFile) -> IndexedFile:
        return file if file.has_key_range else read_key_range(file, storage)

    def lookup(task: LookupTask) -> pa.Table:
        return index.lookup(task, storage) if keygen is None else virtual_key_lookup(keygen, task, storage)

    # Footer reads and lookups are independent per file (a distributed engine runs them on
    # executors); threads overlap their Parquet reads and hashing, which release the GIL. Results
    # keep input order.
    if metadata is not None and keygen is None and index.wants_key_ranges:
        relevant = metadata.with_key_ranges(relevant, storage)
    workers = min(len(relevant), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        if index.wants_key_ranges:
            # Virtual-key lookups never read footers, so they get every range up front.
            alone = _single_file_partitions(index, relevant) if keygen is None else set()
            unread = [i for i, f in enumerate(relevant) if not f.has_key_range and f.partition_path not in alone]
            todo = [relevant[i] for i in unread]
            ranged = list(pool.map(with_range, todo)) if workers > 1 else [with_range(f) for f in todo]
            for i, file in zip(unread, ranged, strict=True):
                relevant[i] = file
        tasks = index.candidate_files(incoming, relevant)
        if metadata is not None and keygen is None:
            tasks = metadata.with_blooms(tasks, storage)
        if workers > 1 and len(tasks) > 1:
            located = found_locations(list(pool.map(lookup, tasks)))
        else:
            located = found_locations([lookup(task) for task in tasks])
        # An index that finds keys in log files: keys only a log file holds (inserts put there).
        slices = [f for f in files if isinstance(f, FileSlice)]
        keys = incoming.column(RECORD_KEY).combine_chunks()
        logged = log_locations(index, keys, distinct_partitions(incoming), slices, storage, workers=max(1, workers))
        if logged:
            located = distinct_locations(found_locations([located, *logged]))
    return apply_locations(
        incoming, located, is_global=index.is_global, update_partition_path=index.update_partition_path
    )


def _single_file_partitions(index: RecordIndex, files: Sequence[IndexedFile]) -> set[str]:
    """Partitions whose only candidate file the lookup range-checks itself: no range read up front."""
    if index.is_global or not index.prunes_ranges_in_lookup:
        return set()
    counts = Counter(f.partition_path for f in files)
    return {partition for partition, n in counts.items() if n == 1}


def _match_values(keys: pa.Array, partitions: pa.Array, *, by_partition: bool) -> pa.LargeStringArray:
    """What a location is matched on: the key, or an injective encoding of (partition, key)."""
    keys = as_key_array(keys)
    if not by_partition:
        return keys
    partitions = as_key_array(partitions)
    # "<partition length>:<partition>:<key>" decodes uniquely, whatever characters either holds.
    lengths = pc.cast(pc.utf8_length(partitions), pa.large_string())
    return as_key_array(pc.binary_join_element_wise(lengths, partitions, keys, pa.scalar(":", pa.large_string())))


def _latest_per_key(found: pa.Table, values: pa.LargeStringArray) -> pa.Table:
    """One row per distinct match value: the greatest instant, then file id, wins."""
    ordered = found.append_column(_MATCH, values).sort_by(
        [(_MATCH, "ascending"), (LOCATION_INSTANT, "descending"), (LOCATION_FILE_ID, "descending")]
    )
    column = ordered.column(_MATCH)
    first = np.ones(ordered.num_rows, dtype=np.bool_)
    if ordered.num_rows > 1:
        same = pc.equal(column.slice(1), column.slice(0, ordered.num_rows - 1))
        first[1:] = ~same.to_numpy(zero_copy_only=False)
    return ordered.filter(pa.array(first)).drop_columns([_MATCH])


def apply_locations(incoming: pa.Table, found: pa.Table, *, is_global: bool, update_partition_path: bool) -> pa.Table:
    """Join lookup results onto incoming records (see the module docstring for the rules).

    Args:
        incoming: Records with ``_hoodie_record_key`` and ``_hoodie_partition_path``; existing
            location columns are replaced.
        found: Lookup results (:data:`~hudi_framework.contracts.index.LOOKUP_SCHEMA`), from any
            number of files, possibly with duplicates.
        is_global: Match on the key alone.
        update_partition_path: Global only: keep the incoming partition (True) or route the
            record to the partition where the key is (False).

    Returns:
        ``incoming`` in row order with the three location columns appended; the row of a key found
        in several file groups repeats, once per file group (see the module docstring).
    """
    keys, partitions = incoming_columns(incoming)
    by_partition = not is_global
    located = found.select(LOOKUP_SCHEMA.names).cast(LOOKUP_SCHEMA).combine_chunks()
    located_keys = as_key_array(located.column(RECORD_KEY))
    position = pc.index_in(as_key_array(keys), value_set=located_keys)
    if _each_found_once(position, located.num_rows):
        # Each key found once (the usual case): match on the key alone, then drop matches from
        # another partition when partitions count. Same answer as matching (partition, key),
        # without building the composite strings for every incoming and located row.
        if by_partition:
            same = pc.equal(located.column(LOCATION_PARTITION).take(position), as_key_array(partitions))
            position = pc.if_else(same, position, pa.scalar(None, position.type))
    else:
        values = _match_values(located_keys, located.column(LOCATION_PARTITION), by_partition=by_partition)
        wanted = _match_values(keys, partitions, by_partition=by_partition)
        if pc.count_distinct(values).as_py() == located.num_rows:
            # A hash lookup of each incoming row in the (distinct) found values; null where not found.
            # It keeps row order, and is several times faster than a join followed by a sort.
            position = pc.index_in(wanted, value_set=values)
        elif is_global and update_partition_path:
            # A key in several file groups, whose move is settled per key: the latest one.
            located = _latest_per_key(located, values).combine_chunks()
            values = _match_values(
                located.column(RECORD_KEY), located.column(LOCATION_PARTITION), by_partition=by_partition
            )
            position = pc.index_in(wanted, value_set=values)
        else:
            rows, position = _every_location(located, values, wanted)
            incoming = incoming.take(rows)
            if is_global:
                partitions = partitions.take(rows)
    tagged = {name: located.column(name).take(position) for name in LOCATION_COLUMNS}
    out = incoming.drop_columns([c for c in LOCATION_COLUMNS if c in incoming.column_names])
    if is_global and not update_partition_path:
        index = out.column_names.index(PARTITION_PATH)
        field = out.schema.field(PARTITION_PATH)
        if pa.types.is_null(field.type):  # an empty ``pa.array([])`` column: give it a real type
            field = field.with_type(pa.large_string())
        routed = pc.coalesce(tagged[LOCATION_PARTITION], partitions).cast(field.type)
        out = out.set_column(index, field, routed)
    for name in LOCATION_COLUMNS:
        out = out.append_column(pa.field(name, pa.large_string()), tagged[name])
    return out


def _every_location(
    located: pa.Table, values: pa.LargeStringArray, wanted: pa.LargeStringArray
) -> tuple[pa.Array, pa.Array]:
    """Each incoming row once per located row of its match value (once, unmatched, if none).

    Args:
        located: Lookup results; ``values`` are their match values (some repeated).
        wanted: The match value of each incoming row.

    Returns:
        ``(incoming row of each output row, located row of each output row or null)``; incoming rows
        keep their order, and the file groups of one row come latest instant first, then file id.
    """
    newest = pc.sort_indices(
        located, sort_keys=[(LOCATION_INSTANT, "descending"), (LOCATION_FILE_ID, "descending")]
    ).to_numpy()
    distinct = pc.unique(values)
    group = to_numpy(pc.index_in(values, value_set=distinct)).astype(np.int64)
    order = newest[np.argsort(group[newest], kind="stable")]  # located rows by group, newest first
    counts = np.bincount(group, minlength=len(distinct))
    starts = np.cumsum(counts) - counts
    of_row = to_numpy(pc.index_in(wanted, value_set=distinct), null=-1).astype(np.int64)
    found = of_row >= 0
    repeats = np.where(found, counts[np.where(found, of_row, 0)], 1)
    rows = np.repeat(np.arange(len(wanted), dtype=np.int64), repeats)
    offsets = np.arange(len(rows), dtype=np.int64) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    groups = of_row[rows]
    at = np.where(groups >= 0, order[starts[np.maximum(groups, 0)] + offsets], 0)
    return pa.array(rows), pa.array(at, mask=groups < 0)


def _each_found_once(position: pa.Array, num_located: int) -> bool:
    """Whether every located row is the first of its key, i.e. located keys are distinct.

    ``index_in`` points each incoming key at the first located row holding it, and every located key
    was looked up for some incoming key; so a located row no incoming key points at repeats an
    earlier key (or is a key nobody asked for, which the general path handles as well). This spares
    a hash pass over the located keys just to count them.
    """
    referenced = np.zeros(num_located, dtype=np.bool_)
    referenced[to_numpy(position.drop_null()).astype(np.int64, copy=False)] = True
    return bool(referenced.all())


def distinct_locations(found: pa.Table) -> pa.Table:
    """``found`` with each (key, partition, file group) once (its latest instant)."""
    by = [RECORD_KEY, LOCATION_PARTITION, LOCATION_FILE_ID]
    grouped = found.group_by(by).aggregate([(LOCATION_INSTANT, "max")])
    return grouped.rename_columns({f"{LOCATION_INSTANT}_max": LOCATION_INSTANT}).select(LOOKUP_SCHEMA.names)


def found_locations(results: Sequence[pa.Table]) -> pa.Table:
    """Concatenate lookup results (an empty result for no tasks)."""
    return pa.concat_tables(results) if results else empty_locations()
