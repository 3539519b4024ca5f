"""The vectorised murmur hash equals the scalar transcription of Hadoop's ``MurmurHash``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.murmur import (
    PreparedKeys,
    bit_positions,
    hash_positions_scalar,
    murmur_hash,
    murmur_hash_scalar,
)

# Lone surrogates cannot be UTF-8 encoded (Java would write '?'); record keys never hold them.
TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
SEEDS = st.integers(min_value=-(2**31), max_value=2**31 - 1)
M = 0x5BD1E995


def _mul(a: int, b: int) -> int:
    return (a * b) & 0xFFFFFFFF


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(TEXT, max_size=60), seed=SEEDS)
def test_vectorised_equals_scalar(keys: list[str], seed: int) -> None:
    expected = [murmur_hash_scalar(k.encode("utf-8"), seed) for k in keys]
    assert murmur_hash(keys, seed).tolist() == expected


@settings(max_examples=100, deadline=None)
@given(keys=st.lists(TEXT.filter(bool), min_size=1, max_size=30), nb_hash=st.integers(1, 12))
def test_positions_equal_scalar_chain(keys: list[str], nb_hash: int) -> None:
    vector_size = 1_000_003
    prepared = PreparedKeys.from_keys(keys)
    rounds = [prepared.to_input_order(p) for p in prepared.positions(nb_hash, vector_size)]
    for i, key in enumerate(keys):
        assert [int(r[i]) for r in rounds] == hash_positions_scalar(key.encode("utf-8"), nb_hash, vector_size)


def test_one_byte_tail_is_sign_extended() -> None:
    # Worked by hand from MurmurHash.java: h = seed ^ len; h ^= (int) (byte) 0xFF = 0xFFFFFFFF; h *= m; mix.
    h = (0 ^ 1) ^ 0xFFFFFFFF
    h = _mul(h, M)
    h ^= h >> 13
    h = _mul(h, M)
    h ^= h >> 15
    expected = h - (1 << 32) if h >= 1 << 31 else h
    assert murmur_hash_scalar(b"\xff", 0) == expected
    # "ÿ" is UTF-8 c3 bf: a two-byte tail, both bytes negative as Java bytes.
    assert murmur_hash(pa.array(["ÿ"]), 0)[0] == murmur_hash_scalar("ÿ".encode(), 0)


def test_three_byte_tail_uses_hadoop_byte_order() -> None:
    # Hadoop xors data[len-3] << 16 (not data[len-1] << 16 as the C reference does).
    data = b"abc"
    h = 0 ^ 3
    h ^= data[0] << 16
    h ^= data[1] << 8
    h ^= data[2]
    h = _mul(h, M)
    h ^= h >> 13
    h = _mul(h, M)
    h ^= h >> 15
    assert murmur_hash_scalar(data) == (h - (1 << 32) if h >= 1 << 31 else h)


def test_sliced_and_chunked_inputs() -> None:
    words = [f"key-{i}-{'x' * (i % 13)}" for i in range(300)]
    expected = [murmur_hash_scalar(w.encode()) for w in words]
    arr = pa.array(words)
    assert murmur_hash(arr.slice(7, 100)).tolist() == expected[7:107]
    chunked = pa.chunked_array([arr.slice(0, 150), arr.slice(150)])
    assert murmur_hash(chunked).tolist() == expected
    assert murmur_hash(pa.array(words, pa.large_string())).tolist() == expected
    assert murmur_hash(arr.dictionary_encode()).tolist() == expected
    assert murmur_hash([]).tolist() == []


def test_select_keeps_hashes() -> None:
    words = [("k" * (i % 23)) + str(i) for i in range(200)]
    prepared = PreparedKeys.from_keys(words)
    seeds = np.arange(len(words), dtype=np.uint32)
    full = prepared.hash(seeds)
    mask = np.arange(len(words)) % 3 == 0
    subset = prepared.select(mask)
    assert subset.hash(seeds[mask]).tolist() == full[mask].tolist()
    assert subset.order.tolist() == prepared.order[mask].tolist()


def test_bit_positions_of_int_min() -> None:
    hashes = np.array([0x80000000, 0xFFFFFFFF, 5], dtype=np.uint32)
    # Java: Math.abs(Integer.MIN_VALUE % 7) = 2; Math.abs(-1 % 7) = 1.
    assert bit_positions(hashes, 7).tolist() == [2, 1, 5]


@settings(max_examples=60, deadline=None)
@given(
    length=st.integers(min_value=0, max_value=13),
    count=st.integers(min_value=1, max_value=40),
    data=st.data(),
    seed=st.integers(min_value=-(2**31), max_value=2**31 - 1),
)
def test_keys_of_one_byte_length_take_the_uniform_path(length: int, count: int, data: st.DataObject, seed: int) -> None:
    # Keys of equal byte length skip the sort and gathers; bytes >= 0x80 exercise sign extension.
    raw = [bytes(data.draw(st.lists(st.integers(0, 255), min_size=length, max_size=length))) for _ in range(count)]
    offsets = np.arange(0, (count + 1) * length, length, dtype=np.int64) if length else np.zeros(count + 1, np.int64)
    prepared = PreparedKeys.from_buffers(offsets, np.frombuffer(b"".join(raw), dtype=np.uint8).copy())
    seeds = np.full(count, seed & 0xFFFFFFFF, dtype=np.uint32)
    got = prepared.to_input_order(prepared.hash(seeds)).view(np.int32).tolist()
    assert got == [murmur_hash_scalar(k, seed) for k in raw]
