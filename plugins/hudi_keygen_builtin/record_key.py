"""Record keys (Java ``KeyGenUtils.getRecordKey``), with the null/empty checks done before any write.

* One field, bare: the value itself; a null or empty value fails.
* Field-prefixed (several fields, or one field of a complex key written ``FIELD_PREFIXED``):
  ``f1:v1,f2:v2``; a null value is written ``__null__`` and an empty one ``__empty__``; only a row
  whose every value is null or empty fails.

The whole batch is checked first and one :class:`~hudi_framework.errors.InvalidRecordKeyError`
names the fields and counts the failing rows.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import InvalidRecordKeyError
from hudi_keygen_builtin.fields import Batch, field_column
from hudi_keygen_builtin.render import render_column

#: Java ``KeyGenUtils.NULL_RECORDKEY_PLACEHOLDER`` / ``EMPTY_RECORDKEY_PLACEHOLDER``.
NULL_PLACEHOLDER = "__null__"
EMPTY_PLACEHOLDER = "__empty__"


class RecordKeyBuilder:
    """Builds the ``_hoodie_record_key`` column from the record key fields."""

    def __init__(self, fields: tuple[str, ...], *, prefixed: bool, consistent_logical_timestamp: bool) -> None:
        """Configure the builder.

        Args:
            fields: Record key fields, in order (at least one).
            prefixed: Spell keys ``field:value``; always the case with more than one field.
            consistent_logical_timestamp: Render zoned timestamps as ``java.sql.Timestamp`` text.
        """
        if not fields:
            raise ValueError("a record key needs at least one field")
        self.fields = fields
        self.prefixed = prefixed or len(fields) > 1
        self._consistent = consistent_logical_timestamp

    def keys(self, batch: Batch) -> pa.Array:
        """The record key of every row.

        Raises:
            InvalidRecordKeyError: Some keys are null or empty.
            KeyFieldError: A field is missing or of an unsupported type.
        """
        texts = [
            render_column(field_column(batch, f), f, consistent_logical_timestamp=self._consistent) for f in self.fields
        ]
        if not self.prefixed:
            return self._bare(texts[0])
        return self._prefixed(texts)

    def _bare(self, text: pa.Array) -> pa.Array:
        null = pc.is_null(text)
        empty = pc.fill_null(pc.equal(pc.binary_length(text), 0), False)
        _raise_if_any(self.fields, null, empty)
        return text

    def _prefixed(self, texts: list[pa.Array]) -> pa.Array:
        parts = []
        all_null: pa.Array | None = None
        all_missing: pa.Array | None = None
        for field, text in zip(self.fields, texts, strict=True):
            null = pc.is_null(text)
            empty = pc.fill_null(pc.equal(pc.binary_length(text), 0), False)
            value = pc.if_else(null, pa.scalar(NULL_PLACEHOLDER), pc.if_else(empty, pa.scalar(EMPTY_PLACEHOLDER), text))
            parts.append(pc.binary_join_element_wise(pa.scalar(f"{field}:"), value, ""))
            missing = pc.or_(null, empty)
            all_null = null if all_null is None else pc.and_(all_null, null)
            all_missing = missing if all_missing is None else pc.and_(all_missing, missing)
        assert all_null is not None
        assert all_missing is not None
        _raise_if_any(self.fields, all_null, pc.and_(all_missing, pc.invert(all_null)))
        return parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, ",")


def _raise_if_any(fields: tuple[str, ...], null: pa.Array, empty: pa.Array) -> None:
    bad = pc.or_(null, empty)
    if not pc.any(bad).as_py():
        return
    raise InvalidRecordKeyError(
        fields,
        null_rows=pc.sum(pc.cast(null, pa.int64())).as_py() or 0,
        empty_rows=pc.sum(pc.cast(empty, pa.int64())).as_py() or 0,
        first_row=pc.index(bad, True).as_py(),
    )
