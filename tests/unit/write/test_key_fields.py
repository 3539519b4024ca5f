"""``require_key_fields``: a batch must carry every record key and partition field (nested ones too)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.errors import KeyFieldError
from hudi_framework.write.batch import require_key_fields

SCHEMA = pa.schema([("id", pa.string()), ("a", pa.struct([("b", pa.int32()), ("c", pa.struct([("d", pa.string())]))]))])


def test_present_fields_pass() -> None:
    require_key_fields(SCHEMA, ["id", "a.b", "a.c.d", "a"])
    require_key_fields(SCHEMA, [])
    # A non-struct on the way is the key generator's to report (with the type).
    require_key_fields(SCHEMA, ["id.x"])


@pytest.mark.parametrize(
    ("field", "where"),
    [("city", "the records"), ("a.x", "struct 'a'"), ("a.c.e", "struct 'a.c'")],
)
def test_a_missing_field_is_named(field: str, where: str) -> None:
    with pytest.raises(KeyFieldError) as info:
        require_key_fields(SCHEMA, ["id", field])
    assert info.value.field == field
    assert f"is missing from {where}" in str(info.value)
