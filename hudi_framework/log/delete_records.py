"""DELETE block content, version 3: an Avro ``HoodieDeleteRecordList`` (hudi-format.md section 4).

Content layout::

    int32 version = 3 | int32 length | length bytes = Avro binary datum of HoodieDeleteRecordList

Each ``HoodieDeleteRecord`` holds a record key, a partition path and an ordering value. The ordering
value is a union of one-field *wrapper* records, so the union branch carries the Java type of the
value (``HoodieAvroUtils.wrapValueIntoAvro``)::

    [null, BooleanWrapper, IntWrapper, LongWrapper, FloatWrapper, DoubleWrapper, BytesWrapper,
     StringWrapper, DateWrapper, DecimalWrapper, TimeMicrosWrapper, TimestampMicrosWrapper,
     ArrayWrapper]

``ArrayWrapper`` (newest Hudi, multiple ordering fields) wraps a list whose items use the same
wrappers plus ``LocalDateWrapper``. Older schemas end at ``TimestampMicrosWrapper``; branch indexes
agree, so one reader schema reads both.

Apache Hudi's SQL ``DELETE`` writes ``IntWrapper(0)`` (``HoodieRecord.DEFAULT_ORDERING_VALUE``),
which every merger treats as a commit-time delete, and it is the only branch hudi-rs 0.5 reads
correctly. :data:`COMMIT_TIME_ORDERING` is that value and the default of
:meth:`~hudi_framework.log.blocks.DeleteBlock.create`.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from types import MappingProxyType
from typing import Any, Final

import fastavro

from hudi_framework.errors import LogBlockDecodeError, LogBlockEncodeError
from hudi_framework.timeline.avro_container import AVRO_NAMESPACE

#: The delete content version written and read (versions 1 and 2 used Kryo / Java serialisation).
DELETE_CONTENT_VERSION: Final = 3
#: Scale of ``DecimalWrapper`` (Avro ``bytes`` decimal, precision 30, scale 15).
DECIMAL_WRAPPER_SCALE: Final = 15

_HEAD = struct.Struct(">ii")
_INT32_RANGE = (-(2**31), 2**31 - 1)
_INT64_RANGE = (-(2**63), 2**63 - 1)


class OrderingType(Enum):
    """The Java type of an ordering value, named after its Avro wrapper record."""

    BOOLEAN = "BooleanWrapper"
    INT = "IntWrapper"
    LONG = "LongWrapper"
    FLOAT = "FloatWrapper"
    DOUBLE = "DoubleWrapper"
    BYTES = "BytesWrapper"
    STRING = "StringWrapper"
    #: Days since the epoch (Java writes the raw ``int``; the wrapper has no logical type).
    DATE = "DateWrapper"
    #: A ``Decimal`` stored at scale 15.
    DECIMAL = "DecimalWrapper"
    TIME_MICROS = "TimeMicrosWrapper"
    #: Microseconds since the epoch, as a raw ``long``.
    TIMESTAMP_MICROS = "TimestampMicrosWrapper"
    #: Days since the epoch; only inside an :attr:`ARRAY`.
    LOCAL_DATE = "LocalDateWrapper"
    #: Several ordering fields: a tuple of ordering values (or None); never nested.
    ARRAY = "ArrayWrapper"

    @property
    def full_name(self) -> str:
        """The Avro full name of the wrapper record."""
        return f"{AVRO_NAMESPACE}.{self.value}"


_SCALAR_TYPES: Final = (
    OrderingType.BOOLEAN,
    OrderingType.INT,
    OrderingType.LONG,
    OrderingType.FLOAT,
    OrderingType.DOUBLE,
    OrderingType.BYTES,
    OrderingType.STRING,
    OrderingType.DATE,
    OrderingType.DECIMAL,
    OrderingType.TIME_MICROS,
    OrderingType.TIMESTAMP_MICROS,
)
#: The scalar wrappers in union order: ``orderingVal`` branch ``i + 1`` is ``SCALAR_ORDERING_TYPES[i]``.
SCALAR_ORDERING_TYPES: Final = _SCALAR_TYPES
# Avro type of each wrapper's ``value`` field, logical types left out on purpose: Java writes dates
# and timestamps as raw numbers, and decimals are converted here so that bytes round-trip exactly.
WRAPPED_AVRO_TYPES: Final = MappingProxyType(
    {
        OrderingType.BOOLEAN: "boolean",
        OrderingType.INT: "int",
        OrderingType.LONG: "long",
        OrderingType.FLOAT: "float",
        OrderingType.DOUBLE: "double",
        OrderingType.BYTES: "bytes",
        OrderingType.STRING: "string",
        OrderingType.DATE: "int",
        OrderingType.DECIMAL: "bytes",
        OrderingType.TIME_MICROS: "long",
        OrderingType.TIMESTAMP_MICROS: "long",
        OrderingType.LOCAL_DATE: "int",
    }
)
_INT32_TYPES: Final = (OrderingType.INT, OrderingType.DATE, OrderingType.LOCAL_DATE)
_INT64_TYPES: Final = (OrderingType.LONG, OrderingType.TIME_MICROS, OrderingType.TIMESTAMP_MICROS)

OrderingScalar = bool | int | float | bytes | str | Decimal


@dataclass(frozen=True, slots=True)
class OrderingValue:
    """An ordering value with its Java type (the wrapper union branch it is stored in).

    Attributes:
        type: The wrapper type.
        value: ``bool`` (BOOLEAN); ``int`` (INT, LONG, DATE, LOCAL_DATE, TIME_MICROS,
            TIMESTAMP_MICROS); ``float`` (FLOAT, DOUBLE); ``bytes``; ``str``; ``Decimal`` (DECIMAL);
            for ARRAY a tuple of ordering values or None items, or None for a null list.
    """

    type: OrderingType
    value: OrderingScalar | tuple[OrderingValue | None, ...] | None

    def __post_init__(self) -> None:
        # Checked here rather than at encode time so a bad value is reported where it was made.
        t, v = self.type, self.value
        if t is OrderingType.ARRAY:
            if v is None:
                return
            if not isinstance(v, tuple) or any(
                item is not None and (not isinstance(item, OrderingValue) or item.type is OrderingType.ARRAY)
                for item in v
            ):
                raise LogBlockEncodeError("an ARRAY ordering value holds a tuple of non-array ordering values")
            return
        if t is OrderingType.BOOLEAN:
            ok = isinstance(v, bool)
        elif t in _INT32_TYPES or t in _INT64_TYPES:
            low, high = _INT32_RANGE if t in _INT32_TYPES else _INT64_RANGE
            ok = isinstance(v, int) and not isinstance(v, bool) and low <= v <= high
        elif t in (OrderingType.FLOAT, OrderingType.DOUBLE):
            ok = isinstance(v, float)
        elif t is OrderingType.BYTES:
            ok = isinstance(v, bytes)
        elif t is OrderingType.STRING:
            ok = isinstance(v, str)
        else:  # DECIMAL
            ok = isinstance(v, Decimal) and _unscaled(v) is not None
        if not ok:
            raise LogBlockEncodeError(f"{v!r} is not a valid {t.name} ordering value")


#: ``IntWrapper(0)``: the ordering value of a commit-time delete, as Apache Hudi writes it.
COMMIT_TIME_ORDERING: Final = OrderingValue(OrderingType.INT, 0)


@dataclass(frozen=True, slots=True)
class DeleteRecord:
    """One entry of a DELETE block.

    Attributes:
        record_key: The record key (``_hoodie_record_key``).
        partition_path: The relative partition path, ``""`` for a non-partitioned table.
        ordering_value: The ordering value, or None when the writer had none.
    """

    record_key: str | None
    partition_path: str | None
    ordering_value: OrderingValue | None = COMMIT_TIME_ORDERING


def delete_list_schema() -> dict[str, Any]:
    """The reader/writer schema of ``HoodieDeleteRecordList`` (newest union, no logical types)."""
    wrappers = [_wrapper(t) for t in _SCALAR_TYPES]
    local_date = _wrapper(OrderingType.LOCAL_DATE)
    array_items: list[Any] = ["null", *(t.full_name for t in _SCALAR_TYPES), local_date]
    array_wrapper = {
        "type": "record",
        "name": OrderingType.ARRAY.value,
        "namespace": AVRO_NAMESPACE,
        "fields": [
            {"name": "wrappedValues", "type": ["null", {"type": "array", "items": array_items}], "default": None}
        ],
    }
    delete_record = {
        "type": "record",
        "name": "HoodieDeleteRecord",
        "namespace": AVRO_NAMESPACE,
        "fields": [
            {"name": "recordKey", "type": ["null", "string"], "default": None},
            {"name": "partitionPath", "type": ["null", "string"], "default": None},
            {"name": "orderingVal", "type": ["null", *wrappers, array_wrapper], "default": None},
        ],
    }
    return {
        "type": "record",
        "name": "HoodieDeleteRecordList",
        "namespace": AVRO_NAMESPACE,
        "fields": [{"name": "deleteRecordList", "type": {"type": "array", "items": delete_record}}],
    }


def _wrapper(t: OrderingType) -> dict[str, Any]:
    return {
        "type": "record",
        "name": t.value,
        "namespace": AVRO_NAMESPACE,
        "fields": [{"name": "value", "type": WRAPPED_AVRO_TYPES[t]}],
    }


def _parsed_schema() -> Any:
    # Parsed per call: the schema is small, and a module-level cache would be shared mutable state.
    return fastavro.parse_schema(json.loads(json.dumps(delete_list_schema())))


# ------------------------------------------------------------------------------------ encoding
def encode_delete_content(records: Sequence[DeleteRecord]) -> bytes:
    """The DELETE block content (version 3) for ``records``."""
    datum = {
        "deleteRecordList": [
            {
                "recordKey": r.record_key,
                "partitionPath": r.partition_path,
                "orderingVal": _wrap(r.ordering_value, top_level=True),
            }
            for r in records
        ]
    }
    out = io.BytesIO()
    fastavro.schemaless_writer(out, _parsed_schema(), datum)
    body = out.getvalue()
    return _HEAD.pack(DELETE_CONTENT_VERSION, len(body)) + body


def _wrap(value: OrderingValue | None, *, top_level: bool) -> tuple[str, dict[str, Any]] | None:
    if value is None:
        return None
    t = value.type
    if t is OrderingType.ARRAY:
        if not top_level:
            raise LogBlockEncodeError("ARRAY ordering values cannot be nested")
        items = value.value
        assert items is None or isinstance(items, tuple)  # checked by OrderingValue
        wrapped = None if items is None else [_wrap(i, top_level=False) for i in items]
        return t.full_name, {"wrappedValues": wrapped}
    if t is OrderingType.LOCAL_DATE and top_level:
        raise LogBlockEncodeError("LOCAL_DATE ordering values occur only inside an ARRAY")
    raw = value.value
    if t is OrderingType.DECIMAL:
        assert isinstance(raw, Decimal)  # checked by OrderingValue
        raw = _decimal_to_bytes(raw)
    return t.full_name, {"value": raw}


def _unscaled(value: Decimal) -> int | None:
    """The unscaled integer of ``value`` at scale 15, or None if it needs more decimals.

    Integer arithmetic on the digits, because Decimal operations round to the context precision
    (28 digits) and a DecimalWrapper holds up to 30.
    """
    if not value.is_finite():
        return None
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite
    unscaled = int("".join(map(str, digits)) or "0")
    shift = exponent + DECIMAL_WRAPPER_SCALE
    factor: int = 10 ** abs(shift)
    if shift >= 0:
        unscaled *= factor
    else:
        unscaled, rest = divmod(unscaled, factor)
        if rest:
            return None
    return -unscaled if sign else unscaled


def _decimal_to_bytes(value: Decimal) -> bytes:
    unscaled = _unscaled(value)
    assert unscaled is not None  # checked by OrderingValue
    # Java's BigInteger.toByteArray: the shortest two's complement that keeps the sign bit.
    bits = unscaled.bit_length() if unscaled >= 0 else (~unscaled).bit_length()
    return unscaled.to_bytes(bits // 8 + 1, "big", signed=True)


# ------------------------------------------------------------------------------------ decoding
def decode_delete_content(content: bytes) -> tuple[DeleteRecord, ...]:
    """Decode DELETE block content.

    Raises:
        LogBlockDecodeError: The content is not version 3, its length disagrees, or the Avro datum
            does not decode to exactly the stated length.
    """
    if len(content) < _HEAD.size:
        raise LogBlockDecodeError(f"delete content of {len(content)} bytes is shorter than its header")
    version, length = _HEAD.unpack_from(content)
    if version != DELETE_CONTENT_VERSION:
        raise LogBlockDecodeError(
            f"delete content version {version} is not supported (only 3; versions 1 and 2 used Java serialisation)"
        )
    if length != len(content) - _HEAD.size:
        raise LogBlockDecodeError(f"delete content says {length} bytes but holds {len(content) - _HEAD.size}")
    stream = io.BytesIO(content[_HEAD.size :])
    try:
        datum: Any = fastavro.schemaless_reader(stream, _parsed_schema(), None, return_record_name=True)
        if stream.tell() != length:
            raise LogBlockDecodeError(f"delete record list ends after {stream.tell()} of {length} bytes")
        return tuple(
            DeleteRecord(r["recordKey"], r["partitionPath"], _unwrap(r["orderingVal"]))
            for r in datum["deleteRecordList"]
        )
    except LogBlockDecodeError:
        raise
    except Exception as e:  # fastavro raises many types on damaged bytes; all mean the same here
        raise LogBlockDecodeError(f"delete record list does not decode: {type(e).__name__}: {e}") from e


def _unwrap(branch: tuple[str, dict[str, Any]] | None) -> OrderingValue | None:
    if branch is None:
        return None
    name, record = branch
    t = OrderingType(name.rsplit(".", 1)[-1])
    if t is OrderingType.ARRAY:
        items = record["wrappedValues"]
        return OrderingValue(t, None if items is None else tuple(_unwrap(i) for i in items))
    raw = record["value"]
    if t is OrderingType.DECIMAL:
        # Built from text: exact, where Decimal arithmetic would round to 28 digits.
        raw = Decimal(f"{int.from_bytes(raw, 'big', signed=True)}E-{DECIMAL_WRAPPER_SCALE}")
    return OrderingValue(t, raw)
