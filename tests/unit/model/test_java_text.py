"""Floating-point numbers as text, the way Java's ``Float.toString`` / ``Double.toString`` print them.

Apache Hudi promotes a float or double into a string column (and into a decimal one, through the
text) with Java's ``toString``: the shortest digits that identify the value, plain between 10^-3
and 10^7 with at least one fractional digit, else ``d.dddE<n>``.
"""

from __future__ import annotations

import math
import random
import struct

import pyarrow as pa
import pytest

from hudi_framework.model.java_text import java_float_text


def _reference(value: float, digits: str, exponent: int) -> str:
    """Java's layout of the shortest ``digits`` (no dot) times 10^``exponent`` (scientific exponent)."""
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if 10**-3 <= abs(value) < 10**7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def java_double(value: float) -> str:
    """Reference: Python's repr holds the same shortest digits as Java 19+'s Double.toString."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    mantissa, _, exp = f"{abs(value):.17e}".partition("e")
    # Shortest round-tripping digits: the fewest significant digits that parse back to the value.
    for n in range(1, 18):
        text = f"{abs(value):.{n - 1}e}"
        if float(text) == abs(value):
            mantissa, _, exp = text.partition("e")
            break
    return _reference(value, *_two_digits_when_one(value, mantissa, exp))


def _two_digits_when_one(value: float, mantissa: str, exp: str) -> tuple[str, int]:
    """Java picks the closest decimal of one *or two* digits when one digit is the shortest."""
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    if len(digits) == 1:
        mantissa, _, exp = f"{abs(value):.1e}".partition("e")
        digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exp)


def java_float(value: float) -> str:
    """Reference for Float.toString: the shortest digits that identify the float32 value."""
    if math.isnan(value) or math.isinf(value) or value == 0:
        return java_double(value)

    def as_f32(x: float) -> float:
        return float(struct.unpack("f", struct.pack("f", x))[0])

    for n in range(1, 10):
        text = f"{abs(value):.{n - 1}e}"
        if as_f32(float(text)) == abs(value):
            mantissa, _, exp = text.partition("e")
            break
    return _reference(value, *_two_digits_when_one(value, mantissa, exp))


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (100.0, "100.0"),
        (-2.5, "-2.5"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (12345678.9, "1.23456789E7"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1.5e-7, "1.5E-7"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1e300, "1.0E300"),
        (5e-324, "4.9E-324"),
        (1e-323, "9.9E-324"),
        (123456.789, "123456.789"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
    ],
)
def test_known_doubles(value: float, text: str) -> None:
    assert java_float_text(pa.array([value], pa.float64())).to_pylist() == [text]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.1, "1.1"),
        (1e10, "1.0E10"),
        (3.4e38, "3.4E38"),
        (16777217.0, "1.6777216E7"),
        (0.3, "0.3"),
        (100.0, "100.0"),
        (1.4e-45, "1.4E-45"),
    ],
)
def test_known_floats(value: float, text: str) -> None:
    assert java_float_text(pa.array([value], pa.float32())).to_pylist() == [text]


def test_random_doubles_and_floats_match_the_reference() -> None:
    rng = random.Random(7)
    doubles = [rng.uniform(-1, 1) * 10 ** rng.randint(-12, 12) for _ in range(3000)]
    doubles += [float(rng.randint(-(10**9), 10**9)) for _ in range(500)]
    doubles += [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(1000)]
    as_float32 = pa.array(doubles, pa.float64()).cast(pa.float32(), safe=False)
    got = java_float_text(pa.array(doubles, pa.float64())).to_pylist()
    assert got == [java_double(v) for v in doubles]
    assert java_float_text(as_float32).to_pylist() == [java_float(v) for v in as_float32.to_pylist()]


def test_nulls_and_chunks_are_kept() -> None:
    values = pa.chunked_array([pa.array([1.0, None], pa.float64()), pa.array([None, 2e-5], pa.float64())])
    assert java_float_text(values).to_pylist() == ["1.0", None, None, "2.0E-5"]
