"""Floats and doubles as text, the way Java's ``Float.toString`` and ``Double.toString`` print them.

Apache Hudi promotes a float or double into a string column with ``toString``, and into a double
(from a float) or a decimal column through that text. Java (19 and later) prints the shortest
decimal that reads back as the value (the closest of one or two digits when one digit suffices),
plain when 10^-3 <= |v| < 10^7 with at least one fraction digit (``100.0``, ``0.001``), otherwise as
``d.dddE<n>`` (``1.0E7``, ``1.0E-4``); ``NaN``, ``Infinity``, ``-Infinity``, ``-0.0``.

Arrow's own cast to string has the same shortest digits in another layout (``1e+07``, ``100``), so
the digits and the exponent are taken from it and laid out again, column-wise.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["java_float_text"]

#: Arrow's text of a finite number: whole digits, fraction digits, exponent sign and digits.
_NUMBER = r"^(?P<whole>\d+)(?:\.(?P<fraction>\d+))?(?:e(?P<sign>[+-])(?P<exp>\d+))?$"
#: Java prints 10^-3 <= |v| < 10^7 plain: scientific exponents -3..6.
_PLAIN_EXPONENTS = range(-3, 7)
#: The smallest normal value of each type: below it one digit may not be the closest short text.
_SMALLEST_NORMAL = {32: float(np.finfo(np.float32).tiny), 64: float(np.finfo(np.float64).tiny)}


def java_float_text(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``values`` (float32 or float64) as Java's ``toString`` text; nulls stay null."""
    if isinstance(values, pa.ChunkedArray):
        return pa.chunked_array([_text(chunk) for chunk in values.chunks], pa.string())
    return _text(values)


def _text(values: pa.Array) -> pa.Array:
    arrow = values.cast(pa.string())
    negative = pc.starts_with(arrow, "-")
    sign = pc.if_else(negative, "-", "")
    magnitude = pc.if_else(negative, pc.utf8_slice_codeunits(arrow, 1), arrow)
    parts = pc.extract_regex(magnitude, _NUMBER)  # null for nan and inf
    whole = parts.field("whole")
    all_digits = pc.binary_join_element_wise(whole, parts.field("fraction"), "")
    significant = pc.utf8_ltrim(all_digits, "0")
    leading_zeros = pc.subtract(pc.utf8_length(all_digits), pc.utf8_length(significant))
    exp_digits = parts.field("exp")
    shift = pc.cast(pc.if_else(pc.equal(exp_digits, ""), "0", exp_digits), pa.int32())
    shift = pc.if_else(pc.equal(parts.field("sign"), "-"), pc.negate(shift), shift)
    exponent = pc.add(pc.subtract(pc.subtract(pc.utf8_length(whole), 1), leading_zeros), shift)
    digits = pc.utf8_rtrim(significant, "0")
    digits, exponent = _two_digits_below_normal(values, digits, exponent)
    text = pc.binary_join_element_wise(sign, _layout(digits, exponent), "")
    text = pc.if_else(pc.equal(digits, ""), pc.binary_join_element_wise(sign, "0.0", ""), text)
    special = pc.is_null(parts)
    java_special = pc.if_else(pc.equal(magnitude, "nan"), "NaN", pc.binary_join_element_wise(sign, "Infinity", ""))
    text = pc.if_else(special, java_special, text)
    return pc.if_else(pc.is_valid(values), text, pa.scalar(None, pa.string()))


def _layout(digits: pa.Array, exponent: pa.Array) -> pa.Array:
    """``digits`` (no leading or trailing zeros) times 10^``exponent`` in Java's layout, unsigned."""
    rest = pc.utf8_slice_codeunits(digits, 1)
    scientific = pc.binary_join_element_wise(
        pc.utf8_slice_codeunits(digits, 0, 1),
        ".",
        pc.if_else(pc.equal(rest, ""), "0", rest),
        "E",
        pc.cast(exponent, pa.string()),
        "",
    )
    conditions, plains = [], []
    for e in _PLAIN_EXPONENTS:  # slicing takes scalar positions: one layout per exponent
        conditions.append(pc.fill_null(pc.equal(exponent, e), False))
        plains.append(_plain(digits, e))
    chosen = pa.StructArray.from_arrays(conditions, names=[str(e) for e in _PLAIN_EXPONENTS])
    return pc.case_when(chosen, *plains, scientific)


def _plain(digits: pa.Array, exponent: int) -> pa.Array:
    if exponent < 0:
        return pc.binary_join_element_wise("0.", "0" * (-exponent - 1), digits, "")
    width = exponent + 1
    whole = pc.utf8_slice_codeunits(pc.utf8_rpad(digits, width, "0"), 0, width)
    fraction = pc.utf8_slice_codeunits(digits, width)
    return pc.binary_join_element_wise(whole, ".", pc.if_else(pc.equal(fraction, ""), "0", fraction), "")


def _two_digits_below_normal(values: pa.Array, digits: pa.Array, exponent: pa.Array) -> tuple[pa.Array, pa.Array]:
    """Java's text of a subnormal whose shortest text has one digit: the closest of one or two digits.

    Above the normal range one digit d is within half an ulp of the value, so ``d.0`` is also the
    closest two-digit text; only the few subnormals with one digit need the exact value.
    """
    smallest = _SMALLEST_NORMAL[values.type.bit_width]
    one_digit = pc.and_(pc.equal(pc.utf8_length(digits), 1), pc.less(pc.abs(values), smallest))
    rows = np.flatnonzero(pc.fill_null(one_digit, False).to_numpy(zero_copy_only=False))
    if not rows.size:
        return digits, exponent
    texts = [f"{abs(values[int(i)].as_py()):.1e}" for i in rows]  # correctly rounded to two digits
    mask = pc.fill_null(one_digit, False)
    closest = pa.array([t.split("e")[0].replace(".", "").rstrip("0") for t in texts], pa.string())
    shifts = pa.array([int(t.split("e")[1]) for t in texts], exponent.type)
    return pc.replace_with_mask(digits, mask, closest), pc.replace_with_mask(exponent, mask, shifts)
