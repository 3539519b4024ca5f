"""Key generators against every fixture table Apache Hudi wrote (except Lance tables).

For each base file, the key generator built from the table's ``hoodie.properties`` computes record
keys and partition paths from the data columns alone; they must equal, row for row, the
``_hoodie_record_key`` / ``_hoodie_partition_path`` meta columns Java wrote. Tables written with
``hoodie.populate.meta.fields=false`` have no meta values; for them (and for every table) the
partition path must at least name the directory that holds the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_framework.plugin import ComponentRegistry
from hudi_framework.table.keys import build_key_generator
from hudi_framework.table.properties import parse_properties
from hudi_framework.table.table_config import TableConfig
from tests.fixture_tables import FixtureTable, all_fixture_tables

FIXTURES = [t for t in all_fixture_tables() if not t.is_lance]
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
_SQL_OPTION = re.compile(r"'(hoodie\.[\w.]+)'\s*=\s*(?:'([^']*)'|\"([^\"]*)\")")
_AVRO_TO_ARROW = {"long": pa.int64(), "int": pa.int32()}


def writer_options(fixture: FixtureTable) -> dict[str, str]:
    """The ``hoodie.*`` TBLPROPERTIES of the table's SQL: the write config Java had.

    Hudi 0.x did not persist ``hoodie.keygen.timebased.timestamp.type``; the writer supplied it.
    """
    sql = fixture.sql_path.read_text() if fixture.sql_path.exists() else ""
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3) for m in _SQL_OPTION.finditer(sql)}


def conform(table: pa.Table, config: TableConfig) -> pa.Table:
    """Cast columns Spark stored as strings back to the table schema's numbers.

    Spark SQL UPDATE/DELETE (``*_PREPPED`` operations, which reuse the stored keys) rewrite files of
    timestamp-keygen tables with the partition column read back from the path as a string; a writer
    computing keys first conforms data to the table schema, which this mirrors.
    """
    if not config.create_schema:
        return table
    for field in json.loads(config.create_schema)["fields"]:
        branches = field["type"] if isinstance(field["type"], list) else [field["type"]]
        avro = next((b for b in branches if b != "null"), None)
        name = field["name"]
        if (
            isinstance(avro, str)
            and avro in _AVRO_TO_ARROW
            and name in table.column_names
            and pa.types.is_string(table.schema.field(name).type)
        ):
            index = table.schema.get_field_index(name)
            table = table.set_column(index, name, pc.cast(table.column(name), _AVRO_TO_ARROW[avro]))
    return table


def base_files(base: Path) -> list[Path]:
    return sorted(f for f in base.rglob("*.parquet") if ".hoodie" not in f.relative_to(base).parts)


@pytest.mark.parametrize("fixture", FIXTURES, ids=[t.id for t in FIXTURES])
def test_keys_equal_the_stored_meta_columns(
    fixture: FixtureTable, extract_fixture: Extract, registry: ComponentRegistry
) -> None:
    base, _ = extract_fixture(fixture)
    config = TableConfig.from_properties(parse_properties((base / ".hoodie" / "hoodie.properties").read_bytes()))
    generator = build_key_generator(registry, config, write_options=writer_options(fixture))
    for path in base_files(base):
        stored = pq.read_table(path)
        data = conform(stored, config)
        generator.check_schema(data.schema)
        keys, partitions = generator.keys(data)
        directory = path.parent.relative_to(base).as_posix()
        assert set(partitions.to_pylist()) <= {"" if directory == "." else directory}, path
        if not config.populate_meta_fields:
            continue
        assert keys.equals(stored.column("_hoodie_record_key").combine_chunks()), path
        assert partitions.equals(stored.column("_hoodie_partition_path").combine_chunks()), path


def test_fixtures_cover_every_table_key_generator_type(extract_fixture: Extract) -> None:
    covered = set()
    for fixture in FIXTURES:
        base, _ = extract_fixture(fixture)
        config = TableConfig.from_properties(parse_properties((base / ".hoodie" / "hoodie.properties").read_bytes()))
        if config.populate_meta_fields and any(pq.read_metadata(f).num_rows for f in base_files(base)):
            covered.add(config.key_generator_type)
    assert covered >= {"SIMPLE", "COMPLEX", "NON_PARTITION", "TIMESTAMP"}
