"""The ``record-level`` index (Apache Hudi ``RECORD_INDEX``) on tables whose ``record_index`` Apache
Hudi wrote (the v9 fixtures with a metadata table):

* tagging from the index equals tagging by reading every base file (``global-simple``), row for
  row, and opens no data file;
* a table without ``record_index`` falls back to the file-based lookup, as Apache Hudi does;
* an index entry naming a file group the table does not have (a write that did not commit) is
  not used;
* the option names Apache Hudi uses select it, and its partitioned variant is refused.
"""

from __future__ import annotations

import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.index import LOCATION_FILE_ID, LOCATION_PARTITION, PARTITION_PATH, RECORD_KEY
from hudi_framework.errors import UnsupportedOptionError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.metadata.record_index_locator import locator_for, open_key_locator
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties, update_properties
from hudi_index_record import RecordLevelIndex, RecordLevelIndexOptions
from hudi_index_simple import GlobalSimpleIndex
from hudi_storage_local.backend import LocalStorageBackend
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _has_record_index(fixture: FixtureTable) -> bool:
    with zipfile.ZipFile(fixture.zip_path) as zf:
        return any("/.hoodie/metadata/record_index/" in n for n in zf.namelist())


RLI_FIXTURES = [t for t in all_fixture_tables() if _has_record_index(t) and not t.is_lance]


class _CountingStorage(LocalStorageBackend):
    """Counts reads and opens of data files (anything outside ``.hoodie``)."""

    data_reads = 0

    def _count(self, key: str) -> None:
        if not key.startswith(".hoodie"):
            type(self).data_reads += 1

    def read(self, key: str) -> bytes:
        self._count(key)
        return super().read(key)

    def read_many(self, keys: list[str]) -> list[bytes]:  # type: ignore[override]
        for key in keys:
            self._count(key)
        return super().read_many(keys)

    def open_input(self, key: str):  # type: ignore[no-untyped-def]
        self._count(key)
        return super().open_input(key)


def _copy(base: Path, tmp_path: Path) -> Path:
    target = tmp_path / base.name
    shutil.copytree(base, target)
    return target


def _slices(base: Path) -> list[FileSlice]:
    return HudiTable.open(str(base)).latest_file_slices()


def _incoming(base: Path) -> pa.Table:
    """Every stored key (from the base files, through the global simple index's own read) plus new keys."""
    table = HudiTable.open(str(base))
    from hudi_framework.read import read_table

    rows = read_table(table).select([RECORD_KEY, PARTITION_PATH])
    extra = pa.table({RECORD_KEY: ["no-such-key-1", "no-such-key-2"], PARTITION_PATH: ["", ""]})
    return pa.concat_tables([rows.cast(extra.schema), extra])


def _sorted(tagged: pa.Table, keys: set[str]) -> list[tuple[str, ...]]:
    """(key, partition, location partition, file id) of the rows of ``keys``, sorted.

    The location's instant is left out: the index stores the instant that inserted the key, a
    base file read names the instant of the base file.
    """
    columns = [RECORD_KEY, PARTITION_PATH, LOCATION_PARTITION, LOCATION_FILE_ID]
    rows = tagged.select(columns).to_pylist()
    return sorted(tuple(str(r[c]) for c in columns) for r in rows if r[RECORD_KEY] in keys)


def _stored_once(incoming: pa.Table) -> set[str]:
    """Keys stored once: a table written with a non-global index may hold a key in several file
    groups, the record-level index names one of them."""
    counts = incoming.group_by(RECORD_KEY).aggregate([(RECORD_KEY, "count")])
    once = counts.filter(pc.equal(counts.column(f"{RECORD_KEY}_count"), 1))
    return set(once.column(RECORD_KEY).to_pylist())


@pytest.mark.parametrize("fixture", RLI_FIXTURES, ids=[t.id for t in RLI_FIXTURES])
def test_tagging_from_record_index_equals_reading_every_base_file(
    fixture: FixtureTable, extract_fixture: Extract
) -> None:
    base, _ = extract_fixture(fixture)
    incoming = _incoming(base)
    slices = _slices(base)
    assert open_key_locator(LocalStorageBackend(str(base)), "record_index") is not None
    counting = _CountingStorage(str(base))
    _CountingStorage.data_reads = 0
    keyed = tag_locations(
        RecordLevelIndex(), incoming, slices, counting, locator=locator_for(RecordLevelIndex(), counting)
    )
    assert _CountingStorage.data_reads == 0  # every location came from the metadata table
    files = tag_locations(
        GlobalSimpleIndex(RecordLevelIndexOptions(update_partition_path=False)),  # type: ignore[arg-type]
        incoming,
        slices,
        LocalStorageBackend(str(base)),
    )
    once = _stored_once(incoming)
    assert len(once) >= incoming.num_rows // 2
    assert _sorted(keyed, once) == _sorted(files, once)
    found = keyed.filter(pc.is_valid(keyed.column(LOCATION_FILE_ID)))
    assert set(found.column(RECORD_KEY).to_pylist()) == set(incoming.column(RECORD_KEY).to_pylist()) - {
        "no-such-key-1",
        "no-such-key-2",
    }


def test_without_record_index_it_falls_back_to_the_base_files(extract_fixture: Extract, tmp_path: Path) -> None:
    base = _copy(extract_fixture(RLI_FIXTURES[0])[0], tmp_path)
    storage = LocalStorageBackend(str(base))
    props = load_properties(storage)
    listed = [p for p in props["hoodie.table.metadata.partitions"].split(",") if p != "record_index"]
    update_properties(storage, {"hoodie.table.metadata.partitions": ",".join(listed)})
    assert open_key_locator(storage, "record_index") is None
    incoming = _incoming(base)
    counting = _CountingStorage(str(base))
    _CountingStorage.data_reads = 0
    index = RecordLevelIndex()
    tagged = tag_locations(index, incoming, _slices(base), counting, locator=locator_for(index, counting))
    assert _CountingStorage.data_reads > 0
    found = tagged.filter(pc.is_valid(tagged.column(LOCATION_FILE_ID)))
    assert set(found.column(RECORD_KEY).to_pylist()) == set(incoming.column(RECORD_KEY).to_pylist()) - {
        "no-such-key-1",
        "no-such-key-2",
    }


def test_an_entry_naming_a_file_group_the_table_does_not_have_is_not_used(extract_fixture: Extract) -> None:
    base, _ = extract_fixture(RLI_FIXTURES[0])
    incoming = _incoming(base)
    slices = _slices(base)
    dropped = slices[0]
    kept = [s for s in slices if s is not dropped]
    storage = LocalStorageBackend(str(base))
    index = RecordLevelIndex()
    tagged = tag_locations(index, incoming, kept, storage, locator=locator_for(index, storage))
    located = tagged.filter(pc.is_valid(tagged.column(LOCATION_FILE_ID)))
    assert dropped.file_id not in set(located.column(LOCATION_FILE_ID).to_pylist())
    assert located.num_rows > 0


@pytest.mark.parametrize("value", ["RECORD_INDEX", "GLOBAL_RECORD_LEVEL_INDEX", "record-level"])
def test_apache_hudi_index_type_names_select_the_record_level_index(value: str) -> None:
    settings = HudiSettings.from_hoodie_options({"hoodie.index.type": value}, env=False)
    assert settings.index.type == "record-level"


def test_record_index_update_partition_path_is_apache_hudis_option() -> None:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.index.type": "RECORD_INDEX", "hoodie.record.index.update.partition.path": "true"}, env=False
    )
    assert settings.index.options["update_partition_path"] in (True, "true")
    assert not RecordLevelIndex().update_partition_path  # Apache Hudi's default: false


def test_the_partitioned_record_level_index_is_refused() -> None:
    with pytest.raises(UnsupportedOptionError, match=r"hoodie\.index\.type"):
        HudiSettings.from_hoodie_options({"hoodie.index.type": "RECORD_LEVEL_INDEX"}, env=False)
