"""Which incoming column types a write takes into the table's types: decided from the two types alone.

The verdicts follow Apache Hudi 1.x with its default write settings: a type is either the table's
own Avro type (``=``), one Hudi promotes into the table's type when it reconciles the incoming
schema with the table's (``P``, ``SchemaChangeUtils.shouldPromoteType``), one Hudi would accept only
by changing the table's type (``E``: its schema compatibility check reads the table's data with the
incoming type; schema evolution, not supported here yet), or none of these (``-``).
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.errors import ColumnTypeError, SchemaEvolutionRequiredError, SchemaMismatchError
from hudi_framework.model.promotion import Fit, fit

#: One Arrow type per Avro primitive and logical type the project maps (``model/schema.py``).
AVRO = {
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "bytes": pa.binary(),
    "fixed": pa.binary(5),
    "decimal": pa.decimal128(10, 2),  # an Avro fixed of 5 bytes, like "fixed"
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
}
NAMES = list(AVRO)

# Rows: the incoming type; columns: the table's, in the order of NAMES.
#             bool int long flt dbl str byt fix dec date tms tus tsms tsus ltms ltus
MATRIX = {
    "boolean": "=    -   -    -   -   -   -   -   -   -    -   -   -    -    -    -",
    "int":     "-    =   P    P   P   P   -   -   P   -    -   -   -    -    -    -",
    "long":    "-    E   =    P   P   P   -   -   P   -    -   -   -    -    -    -",
    "float":   "-    E   E    =   P   P   -   -   P   -    -   -   -    -    -    -",
    "double":  "-    E   E    E   =   P   -   -   P   -    -   -   -    -    -    -",
    "string":  "-    E   E    E   E   =   P   -   P   P    -   -   -    -    -    -",
    "bytes":   "-    -   -    -   -   P   =   -   -   -    -   -   -    -    -    -",
    "fixed":   "-    -   -    -   -   -   -   =   -   -    -   -   -    -    -    -",
    "decimal": "-    -   -    -   -   P   -   -   =   -    -   -   -    -    -    -",
    "date":    "-    -   -    -   -   P   -   -   -   =    -   -   -    -    -    -",
    "time-millis": "- -  -    -   -   -   -   -   -   -    =   -   -    -    -    -",
    "time-micros": "- -  -    -   -   -   -   -   -   -    -   =   -    -    -    -",
    "timestamp-millis": "- - E -  -   -   -   -   -   -    -   -   =    E    -    -",
    "timestamp-micros": "- - E -  -   -   -   -   -   -    -   -   -    =    -    -",
    "local-timestamp-millis": "- - E - - - - -  -   -    -   -   -    -    =    E",
    "local-timestamp-micros": "- - E - - - - -  -   -    -   -   -    -    -    =",
}  # fmt: skip


def verdict(incoming: pa.DataType, table: pa.DataType, column: str = "c") -> str:
    try:
        result = fit(incoming, table, column)
    except SchemaEvolutionRequiredError:
        return "E"
    except SchemaMismatchError:
        return "-"
    return "=" if result is Fit.SAME else "P"


CASES = [
    pytest.param(src, dst, expected, id=f"{src}->{dst}")
    for src, row in MATRIX.items()
    for dst, expected in zip(NAMES, row.split(), strict=True)
]


def test_the_matrix_covers_every_pair() -> None:
    assert list(MATRIX) == NAMES
    assert len(CASES) == len(NAMES) ** 2


@pytest.mark.parametrize(("src", "dst", "expected"), CASES)
def test_every_avro_type_pair(src: str, dst: str, expected: str) -> None:
    assert verdict(AVRO[src], AVRO[dst]) == expected


@pytest.mark.parametrize(
    ("incoming", "table", "expected"),
    [
        # Wider decimals take narrower ones (Hudi's DecimalType.isWiderThan, or same scale and more digits).
        (pa.decimal128(8, 2), pa.decimal128(10, 2), "P"),
        (pa.decimal128(10, 2), pa.decimal128(12, 3), "P"),
        (pa.decimal128(12, 2), pa.decimal128(10, 2), "E"),
        (pa.decimal128(10, 3), pa.decimal128(10, 2), "-"),
        (pa.decimal128(10, 2), pa.decimal128(10, 3), "-"),
        (pa.int32(), pa.decimal128(3, 0), "P"),  # the values decide nothing: 1000 then fails the write
        (pa.int64(), pa.decimal128(38, 10), "P"),
        (pa.float64(), pa.decimal128(5, 4), "P"),
        (pa.binary(4), pa.binary(5), "-"),
    ],
)
def test_decimals_and_fixed(incoming: pa.DataType, table: pa.DataType, expected: str) -> None:
    assert verdict(incoming, table) == expected


@pytest.mark.parametrize(
    ("incoming", "table"),
    [
        (pa.int8(), pa.int32()),
        (pa.int16(), pa.int32()),
        (pa.uint8(), pa.int32()),
        (pa.uint16(), pa.int32()),
        (pa.uint32(), pa.int64()),
        (pa.float16(), pa.float32()),
        (pa.large_string(), pa.string()),
        (pa.string_view(), pa.string()),
        (pa.dictionary(pa.int32(), pa.string()), pa.string()),
        (pa.dictionary(pa.int8(), pa.int64()), pa.int64()),
        (pa.large_binary(), pa.binary()),
        (pa.binary_view(), pa.binary()),
        (pa.date64(), pa.date32()),
        (pa.timestamp("s", tz="UTC"), pa.timestamp("ms", tz="UTC")),
        (pa.timestamp("ns", tz="America/New_York"), pa.timestamp("us", tz="UTC")),
        (pa.timestamp("ns"), pa.timestamp("us")),
        (pa.time32("s"), pa.time32("ms")),
        (pa.time64("ns"), pa.time64("us")),
        (pa.decimal256(10, 2), pa.decimal128(10, 2)),
        (pa.decimal64(10, 2), pa.decimal128(10, 2)),
        (pa.large_list(pa.string()), pa.list_(pa.field("element", pa.string()))),
        (pa.list_(pa.int64(), 3), pa.list_(pa.field("element", pa.int64()))),
        (pa.map_(pa.large_string(), pa.int32()), pa.map_(pa.string(), pa.field("value", pa.int32()))),
        (
            pa.struct([("b", pa.string()), ("a", pa.int32())]),  # order is not part of the type
            pa.struct([("a", pa.int32()), ("b", pa.string())]),
        ),
        (pa.null(), pa.float64()),  # a column of nulls has no values to convert
        (pa.null(), pa.struct([("a", pa.int32())])),
    ],
)
def test_arrow_representations_of_the_same_avro_type(incoming: pa.DataType, table: pa.DataType) -> None:
    assert fit(incoming, table, "c") is Fit.SAME


@pytest.mark.parametrize(
    ("incoming", "table", "expected"),
    [
        (pa.int8(), pa.int64(), "P"),
        (pa.uint16(), pa.float64(), "P"),
        (pa.uint32(), pa.int32(), "E"),  # an Avro long
        (pa.float16(), pa.float64(), "P"),
        (pa.dictionary(pa.int32(), pa.large_string()), pa.decimal128(10, 2), "P"),
        (pa.timestamp("ns", tz="UTC"), pa.timestamp("us"), "-"),  # UTC-adjusted vs local
        (pa.timestamp("s"), pa.timestamp("us"), "E"),  # local-timestamp-millis into micros
        (pa.uint64(), pa.int64(), "-"),  # no Avro type holds every uint64
        (pa.duration("s"), pa.int64(), "-"),  # no Avro counterpart
        (pa.list_(pa.int32()), pa.int32(), "-"),
        (pa.int32(), pa.list_(pa.int32()), "-"),
    ],
)
def test_arrow_representations_of_other_types(incoming: pa.DataType, table: pa.DataType, expected: str) -> None:
    assert verdict(incoming, table) == expected


def test_values_never_decide() -> None:
    """The verdict takes types only: there is no way to hand it values."""
    assert verdict(pa.string(), pa.float64()) == "E"
    assert verdict(pa.int64(), pa.int32()) == "E"
    assert verdict(pa.int32(), pa.int64()) == "P"


def test_an_error_names_the_column_and_both_types() -> None:
    with pytest.raises(ColumnTypeError) as caught:
        fit(pa.string(), pa.bool_(), "flag")
    err = caught.value
    assert (err.column, err.incoming, err.table) == ("flag", "string", "bool")
    for part in ("'flag'", "string", "bool"):
        assert part in str(err)


def test_a_type_hudi_would_evolve_the_table_to_says_so() -> None:
    with pytest.raises(SchemaEvolutionRequiredError) as caught:
        fit(pa.int64(), pa.int32(), "qty")
    err = caught.value
    assert isinstance(err, ColumnTypeError)
    assert (err.column, err.incoming, err.table) == ("qty", "int64", "int32")
    assert "schema evolution" in str(err)
    assert "widen" in str(err)


@pytest.mark.parametrize(
    ("incoming", "table", "expected", "column"),
    [
        (
            pa.struct([("a", pa.int32()), ("b", pa.int32())]),
            pa.struct([("a", pa.int32()), ("b", pa.int64())]),
            "P",
            None,
        ),
        (pa.struct([("b", pa.int64())]), pa.struct([("b", pa.int32())]), "E", "s.b"),
        (pa.struct([("a", pa.int32()), ("x", pa.int32())]), pa.struct([("a", pa.int32())]), "E", "s.x"),
        (pa.struct([("a", pa.int32())]), pa.struct([("a", pa.int32()), ("b", pa.int32())]), "-", "s.b"),
        (pa.list_(pa.int32()), pa.list_(pa.field("element", pa.int64())), "P", None),
        (pa.list_(pa.string()), pa.list_(pa.field("element", pa.float64())), "E", "s.element"),
        (
            pa.map_(pa.string(), pa.float32()),
            pa.map_(pa.string(), pa.field("value", pa.float64())),
            "P",
            None,
        ),
        (pa.map_(pa.string(), pa.bool_()), pa.map_(pa.string(), pa.field("value", pa.string())), "-", "s.value"),
        (pa.map_(pa.int32(), pa.string()), pa.map_(pa.string(), pa.field("value", pa.string())), "-", "s.key"),
        (
            pa.list_(pa.struct([("x", pa.int64())])),
            pa.list_(pa.field("element", pa.struct([("x", pa.int32())]))),
            "E",
            "s.element.x",
        ),
    ],
)
def test_nested_types_name_the_nested_path(
    incoming: pa.DataType, table: pa.DataType, expected: str, column: str | None
) -> None:
    assert verdict(incoming, table, "s") == expected
    if column is not None:
        with pytest.raises(SchemaMismatchError) as caught:
            fit(incoming, table, "s")
        assert caught.value.column == column
