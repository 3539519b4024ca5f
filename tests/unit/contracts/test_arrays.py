"""Buffer-built conversions between numpy/Python values and Arrow agree with pyarrow's own."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.contracts.arrays import (
    from_numpy,
    indices,
    python_array,
    repeated_dictionary,
    repeated_string,
    string_array,
    to_numpy,
)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "int64", "uint16", "float32", "float64"])
def test_from_numpy_equals_pa_array(dtype: str) -> None:
    values = (np.random.default_rng(0).random(37) * 100).astype(dtype)
    assert from_numpy(values).equals(pa.array(values))
    strided = values[::3]  # not contiguous
    assert from_numpy(strided).equals(pa.array(strided))
    valid = np.arange(37) % 4 != 0
    assert from_numpy(values, valid=valid).equals(pa.array(values, mask=~valid))


def test_from_numpy_with_type_and_refusals() -> None:
    assert from_numpy(np.array([1, 2], dtype=np.int64), pa.timestamp("us")).equals(
        pa.array([1, 2], pa.int64()).cast(pa.timestamp("us"))
    )
    with pytest.raises(TypeError):
        from_numpy(np.array(["a"], dtype=object))
    assert indices(np.array([3, 1], dtype=np.int32)).equals(pa.array([3, 1], pa.int64()))


@pytest.mark.parametrize("arrow_type", [pa.bool_(), pa.int32(), pa.int64(), pa.float64()])
def test_to_numpy_reads_offsets_and_chunks(arrow_type: pa.DataType) -> None:
    raw = pa.array([i % 3 == 0 if arrow_type == pa.bool_() else i for i in range(21)]).cast(arrow_type)
    for view in (raw, raw.slice(5), raw.slice(3, 9), pa.chunked_array([raw.slice(0, 4), raw.slice(4)])):
        assert np.array_equal(to_numpy(view), np.asarray(view.to_numpy(zero_copy_only=False)))
    assert to_numpy(pa.chunked_array([], arrow_type)).shape == (0,)


def test_to_numpy_nulls() -> None:
    values = pa.array([5, None, 7, None], pa.int32())
    assert to_numpy(values, null=-1).tolist() == [5, -1, 7, -1]
    assert to_numpy(values.slice(1), null=0).tolist() == [0, 7, 0]
    with_nulls = to_numpy(values)  # no fill value: Arrow's conversion (floats with NaN)
    assert np.isnan(with_nulls[1])


def test_strings_and_python_values() -> None:
    assert repeated_string("a|b", 3).equals(pa.array(["a|b"] * 3, pa.string()))
    assert repeated_string("x", 0).equals(pa.array([], pa.string()))
    expected = pa.array(["f_1.parquet"] * 4, pa.string()).dictionary_encode()
    assert repeated_dictionary("f_1.parquet", 4).equals(expected)
    assert repeated_dictionary("f", 0).to_pylist() == []
    texts = ["k1", None, "héllo", ""]
    assert string_array(texts).equals(pa.array(texts, pa.string()))
    for values in ([1, None, 2**40], [1.5, None], ["a", None], [True, None], [1, 2.5], [2**70], [None]):
        try:
            expected = pa.array(values)
        except (OverflowError, pa.ArrowInvalid):
            with pytest.raises((OverflowError, pa.ArrowInvalid)):
                python_array(values)
            continue
        assert python_array(values).equals(expected)
