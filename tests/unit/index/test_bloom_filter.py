"""Bloom filters: membership, false-positive rate, Java's bytes, dynamic rows, malformed input."""

from __future__ import annotations

import base64
import math
import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType, bloom_size
from hudi_framework.errors import BloomFilterFormatError
from tests.unit.index.java_reference import JavaDynamicBloomFilter

KEY = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=30)
TYPES = st.sampled_from([BloomFilterType.SIMPLE, BloomFilterType.DYNAMIC_V0])


def test_default_sizes_match_apache_hudi() -> None:
    assert bloom_size(60_000, 1e-9) == (2_587_966, 30)
    bloom = BloomFilter.create()
    assert (bloom.filter_type, bloom.vector_size, bloom.nb_hash, bloom.row_capacity) == (
        BloomFilterType.DYNAMIC_V0,
        2_587_966,
        30,
        60_000,
    )
    # One default row serialises to 323,534 bytes, about 431 KB of base64 (hudi-format.md 5.3).
    assert len(bloom.to_bytes()) == 13 + 12 + 13 + 323_496


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(KEY, max_size=200), filter_type=TYPES, num_entries=st.integers(1, 50), fpp=st.floats(1e-6, 0.3))
def test_every_added_key_is_found(keys: list[str], filter_type: BloomFilterType, num_entries: int, fpp: float) -> None:
    config = BloomFilterConfig(num_entries=num_entries, fpp=fpp, filter_type=filter_type, dynamic_max_entries=120)
    bloom = BloomFilter.from_keys(keys, config)
    assert bloom.might_contain(keys).all()
    again = BloomFilter.deserialize(bloom.serialize(), filter_type)
    assert again.might_contain(pa.array(keys)).all()


@settings(max_examples=60, deadline=None)
@given(
    batches=st.lists(st.lists(KEY, max_size=25), max_size=6),
    nr=st.integers(1, 12),
    max_nr=st.integers(1, 60),
    filter_type=TYPES,
)
def test_bytes_equal_the_per_key_java_port(
    batches: list[list[str]], nr: int, max_nr: int, filter_type: BloomFilterType
) -> None:
    """Batched adds (rows, round-robin, counts) give exactly the bytes of Java's per-key algorithm."""
    config = BloomFilterConfig(num_entries=nr, fpp=0.05, filter_type=filter_type, dynamic_max_entries=max_nr)
    vector_size, nb_hash = bloom_size(nr, 0.05)
    java = JavaDynamicBloomFilter(vector_size, nb_hash, nr, max_nr, simple=filter_type is BloomFilterType.SIMPLE)
    bloom = BloomFilter.create(config)
    for batch in batches:
        bloom.add(batch)
        for key in batch:
            java.add(key)
    assert bloom.to_bytes() == java.to_bytes()


def test_dynamic_rows_grow_then_round_robin() -> None:
    config = BloomFilterConfig(num_entries=10, fpp=1e-6, dynamic_max_entries=30)
    keys = [f"key-{i:03d}" for i in range(45)]
    bloom = BloomFilter.create(config)
    bloom.add(keys[:10])
    assert (bloom.num_rows, bloom.current_count) == (1, 10)
    bloom.add(keys[10:11])
    assert (bloom.num_rows, bloom.current_count) == (2, 1)
    bloom.add(keys[11:30])
    assert (bloom.num_rows, bloom.current_count) == (3, 10)
    bloom.add(keys[30:])
    # No fourth row: 3 * 10 >= 30. The count keeps growing, as in Java.
    assert (bloom.num_rows, bloom.current_count) == (3, 25)

    java = JavaDynamicBloomFilter(bloom.vector_size, bloom.nb_hash, 10, 30)
    for key in keys:
        java.add(key)
    # Keys 0-9 row 0, 10-19 row 1, 20-29 row 2; then the limit: key 30 -> row 0, and the
    # round-robin starts at row 0 again: 31 -> 0, 32 -> 1, 33 -> 2, 34 -> 0...
    expected_rows = [i // 10 for i in range(30)] + [0] + [(i - 31) % 3 for i in range(31, 45)]
    assert [java.rows_containing(k) for k in keys] == [[r] for r in expected_rows]
    bits = bloom.bits
    for key, row in zip(keys, expected_rows, strict=True):
        single = BloomFilter(
            BloomFilterType.SIMPLE,
            vector_size=bloom.vector_size,
            nb_hash=bloom.nb_hash,
            rows=np.packbits(bits[row : row + 1], axis=1, bitorder="little"),
        )
        assert single.might_contain([key])[0]
    assert bloom.to_bytes() == java.to_bytes()


def _absent_rate(bloom: BloomFilter, n: int) -> float:
    probes = pa.array([f"absent/{i}/{i * 2654435761 % 1000003}" for i in range(n)])
    return float(bloom.might_contain(probes).mean())


@pytest.mark.parametrize("filter_type", list(BloomFilterType))
def test_false_positive_rate_within_fpp(filter_type: BloomFilterType) -> None:
    fpp, entries, probes = 0.01, 20_000, 100_000
    config = BloomFilterConfig(num_entries=entries, fpp=fpp, filter_type=filter_type, dynamic_max_entries=entries)
    bloom = BloomFilter.from_keys(pa.array([f"present/{i}" for i in range(entries)]), config)
    assert bloom.num_rows == 1
    measured = _absent_rate(bloom, probes)
    # Java rounds the hash count up (6.64 -> 7), so at full capacity the theoretical rate is a hair
    # above fpp: (1 - e^(-k n / m))^k = 0.01005. Allow four standard deviations of sampling noise.
    m, k = bloom.vector_size, bloom.nb_hash
    theoretical = (1 - math.exp(-k * entries / m)) ** k
    assert theoretical <= fpp * 1.01
    assert measured <= theoretical + 4 * math.sqrt(fpp * (1 - fpp) / probes)
    # Half full, the filter is far better than fpp.
    half = BloomFilter.from_keys(pa.array([f"present/{i}" for i in range(entries // 2)]), config)
    assert _absent_rate(half, probes) < fpp / 5


def test_serialisation_layout() -> None:
    config = BloomFilterConfig(num_entries=100, fpp=0.01)
    bloom = BloomFilter.from_keys(["a", "b", "c"], config)
    raw = bloom.to_bytes()
    version, nb_hash, hash_type, vector_size = struct.unpack_from(">iibi", raw)
    assert (version, nb_hash, hash_type, vector_size) == (-1, bloom.nb_hash, 1, bloom.vector_size)
    assert struct.unpack_from(">iii", raw, 13) == (100, 3, 1)
    assert raw[25:38] == raw[:13]
    assert len(raw) == 38 + (vector_size + 7) // 8
    assert base64.b64decode(bloom.serialize()) == raw
    assert BloomFilter.from_bytes(raw, "DYNAMIC_V0").to_bytes() == raw

    simple = BloomFilter.from_keys(["a"], config.model_copy(update={"filter_type": BloomFilterType.SIMPLE}))
    assert len(simple.to_bytes()) == 13 + (simple.vector_size + 7) // 8
    assert BloomFilter.deserialize(simple.serialize()).to_bytes() == simple.to_bytes()


def test_spare_bits_in_the_last_byte_are_ignored() -> None:
    bloom = BloomFilter.from_keys(["x"], BloomFilterConfig(num_entries=3, fpp=0.1, filter_type="SIMPLE"))
    assert bloom.vector_size % 8
    raw = bytearray(bloom.to_bytes())
    raw[-1] |= 0x80
    assert BloomFilter.from_bytes(bytes(raw)).to_bytes() == bloom.to_bytes()


def test_null_and_empty_keys() -> None:
    bloom = BloomFilter.from_keys(["a"], BloomFilterConfig(num_entries=10, fpp=0.01))
    with pytest.raises(ValueError, match="empty"):
        bloom.add([""])
    with pytest.raises(ValueError, match="null"):
        bloom.add(pa.array(["b", None]))
    assert bloom.might_contain(pa.array(["a", None, ""])).tolist() == [True, False, False]
    assert bloom.might_contain([]).tolist() == []


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw[:-1], "truncated"),
        (lambda raw: raw + b"\0", "unexpected bytes"),
        (lambda raw: struct.pack(">i", 30) + raw[4:], "version"),
        (lambda raw: raw[:10], "truncated filter header"),
        (lambda raw: raw[:13] + struct.pack(">iii", 10, 0, 0), "rows"),
        (lambda raw: raw[:25] + raw[:5] + b"\x09" + raw[6:13] + raw[38:], "row 0 header"),
    ],
)
def test_malformed_bytes(mutate: object, message: str) -> None:
    raw = BloomFilter.from_keys(["a"], BloomFilterConfig(num_entries=10, fpp=0.01)).to_bytes()
    with pytest.raises(BloomFilterFormatError, match=message):
        BloomFilter.from_bytes(mutate(raw), BloomFilterType.DYNAMIC_V0)  # type: ignore[operator]


def test_bad_base64_and_hash_type() -> None:
    with pytest.raises(BloomFilterFormatError, match="base64"):
        BloomFilter.deserialize("not base64!")
    raw = bytearray(BloomFilter.from_keys(["a"], BloomFilterConfig(num_entries=10, filter_type="SIMPLE")).to_bytes())
    raw[8] = 0  # Jenkins
    jenkins = BloomFilter.from_bytes(bytes(raw))
    assert jenkins.hash_type == 0
    with pytest.raises(BloomFilterFormatError, match="hash type 0"):
        jenkins.might_contain(["a"])


def test_large_batches_match_small_batches() -> None:
    keys = pa.array([f"{i:07d}" for i in range(150_000)])
    config = BloomFilterConfig(num_entries=50_000, fpp=1e-4, dynamic_max_entries=120_000)
    one = BloomFilter.from_keys(keys, config)
    many = BloomFilter.create(config)
    for start in range(0, len(keys), 40_000):
        many.add(keys.slice(start, 40_000))
    assert one.to_bytes() == many.to_bytes()
    assert (one.num_rows, one.current_count) == (3, 50_000)
    assert one.might_contain(keys).all()
