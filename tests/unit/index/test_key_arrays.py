"""Java's ``String.compareTo`` order on UTF-8 key arrays."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.key_arrays import (
    as_key_array,
    from_java_order_bytes,
    in_java_range,
    java_min_max,
    java_order_bytes,
    java_sort_keys,
)

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)


def _java_key(s: str) -> bytes:
    # UTF-16BE bytes compare exactly like Java's UTF-16 code units.
    return s.encode("utf-16-be")


def test_supplementary_characters_sort_before_private_use() -> None:
    keys = ["\ue000", "\U00010000", "\uffff", "\ud7ff", "a"]
    assert java_min_max(keys) == ("a", "\uffff")
    ordered = sorted(keys, key=java_order_bytes)
    assert ordered == ["a", "\ud7ff", "\U00010000", "\ue000", "\uffff"]
    assert ordered == sorted(keys, key=_java_key)
    assert sorted(keys) != ordered  # code point order differs


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(TEXT, min_size=1, max_size=30))
def test_min_max_and_order_match_utf16(keys: list[str]) -> None:
    assert java_min_max(keys) == (min(keys, key=_java_key), max(keys, key=_java_key))
    assert sorted(keys, key=java_order_bytes) == sorted(keys, key=_java_key)
    sort_keys = java_sort_keys(keys).to_pylist()
    assert [from_java_order_bytes(b) for b in sort_keys] == keys


@settings(max_examples=100, deadline=None)
@given(keys=st.lists(TEXT, max_size=30), low=TEXT, high=TEXT)
def test_in_range(keys: list[str], low: str, high: str) -> None:
    mask = in_java_range(keys, low, high).tolist()
    assert mask == [_java_key(low) <= _java_key(k) <= _java_key(high) for k in keys]
    assert in_java_range(keys, None, None).all()


def test_nulls_and_slices() -> None:
    arr = pa.array(["b", None, "\U0001f600", "a", None, "\uefff"])
    part = arr.slice(1, 4)
    assert java_min_max(part) == ("a", "\U0001f600")
    assert java_sort_keys(part).to_pylist() == [None, java_order_bytes("\U0001f600"), b"a", None]
    assert in_java_range(part, "a", "b").tolist() == [False, False, True, False]
    assert java_min_max(pa.array([None, None], pa.string())) is None
    assert java_min_max([]) is None
    assert as_key_array(pa.chunked_array([], pa.string())).type == pa.large_string()
