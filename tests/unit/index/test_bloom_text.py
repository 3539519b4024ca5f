"""Keys patched into a filter's base64 text give the text a full decode, add and encode gives."""

from __future__ import annotations

import base64
import binascii
import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.contracts.indexing.bloom_text import SerializedBloom
from hudi_framework.contracts.indexing.footer import BLOOM_FILTER_KEY, bloom_footer_metadata, read_key_footer
from hudi_framework.errors import BloomFilterFormatError
from hudi_framework.index.bloom_carry import carried_bloom

KEY = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=24)
KEYS = st.lists(KEY, max_size=120, unique=True)
TYPES = st.sampled_from([BloomFilterType.SIMPLE, BloomFilterType.DYNAMIC_V0])
#: Characters a damaged footer may hold: the alphabet, padding, and what strict base64 refuses.
DAMAGE = st.sampled_from([*"AQgw+/09=", "\n", " ", "-", "_", "*", "é", "\x00"])


def _decoded_path(text: str | bytes, kind: BloomFilterType, added: list[str], max_entries: int) -> BloomFilter:
    """Today's carry: decode the whole text, resume, add, (serialise)."""
    bloom = BloomFilter.deserialize(text, kind).resumed(max_entries)
    bloom.add(added)
    return bloom


def _assert_same(patched: SerializedBloom, decoded: BloomFilter) -> None:
    assert patched.text == decoded.serialize().encode("ascii")
    assert (patched.num_rows, patched.current_count, patched.keys_added) == (
        decoded.num_rows,
        decoded.current_count,
        decoded.keys_added,
    )


@settings(max_examples=150, deadline=None)
@given(
    old=KEYS,
    added=KEYS,
    kind=TYPES,
    num_entries=st.integers(1, 40),
    fpp=st.sampled_from([0.3, 0.05, 1e-3, 1e-6]),
    max_entries=st.integers(1, 160),
    resume_max=st.integers(1, 160),
)
def test_patched_text_equals_decode_add_encode(
    old: list[str],
    added: list[str],
    kind: BloomFilterType,
    num_entries: int,
    fpp: float,
    max_entries: int,
    resume_max: int,
) -> None:
    # Sizes cover filters that grow rows while adding, that are full (round-robin), partial last
    # base64 groups (1, 2 or 0 padding characters) and vector sizes with and without spare bits.
    config = BloomFilterConfig(num_entries=num_entries, fpp=fpp, filter_type=kind, dynamic_max_entries=max_entries)
    text = BloomFilter.from_keys(old, config).serialize()
    patched = SerializedBloom.parse(text, kind).with_keys(pa.array(added, pa.string()), max_entries=resume_max)
    _assert_same(patched, _decoded_path(text, kind, added, resume_max))
    assert patched.serialize() == patched.text.decode("ascii")


@pytest.mark.parametrize("kind", list(BloomFilterType))
def test_growing_rows_past_a_partial_last_group(kind: BloomFilterType) -> None:
    # 17-bit rows (3 bytes, 7 spare bits): the serialised filter is not a whole number of base64
    # groups, so new rows are encoded together with the old text's partial last group.
    config = BloomFilterConfig(num_entries=5, fpp=0.2, filter_type=kind, dynamic_max_entries=1000)
    old = [f"k{i}" for i in range(5)]
    before = BloomFilter.from_keys(old, config)
    assert before.vector_size == 17
    assert len(before.to_bytes()) % 3
    text = before.serialize()
    added = [f"n{i}" for i in range(15)]
    patched = SerializedBloom.parse(text, kind).with_keys(added, max_entries=1000)
    _assert_same(patched, _decoded_path(text, kind, added, 1000))
    if kind is BloomFilterType.DYNAMIC_V0:
        assert (SerializedBloom.parse(text, kind).num_rows, patched.num_rows) == (1, 4)
    assert patched.might_contain(old + added).all()


def test_apache_hudi_default_filter() -> None:
    config = BloomFilterConfig()
    old = [f"key-{i:07d}" for i in range(62_500)]  # two rows, as the benchmark's files have
    text = BloomFilter.from_keys(old, config).serialize()
    added = [f"new-{i:07d}" for i in range(1_250)]
    parsed = SerializedBloom.parse(text, BloomFilterType.DYNAMIC_V0)
    assert (parsed.num_rows, parsed.current_count, parsed.keys_added) == (2, 2_500, 62_500)
    patched = parsed.with_keys(added, max_entries=config.dynamic_max_entries)
    _assert_same(patched, _decoded_path(text, BloomFilterType.DYNAMIC_V0, added, config.dynamic_max_entries))


def _with_spare_bits_and_loose_padding(text: str, kind: BloomFilterType) -> str:
    """``text`` with the bits past ``vector_size`` of every row set and the padding bits of the last
    character set: strict base64 and Java read both, and both vanish on re-encoding."""
    bloom = BloomFilter.deserialize(text, kind)
    raw = bytearray(bloom.to_bytes())
    row_bytes = (bloom.vector_size + 7) // 8
    spare = row_bytes * 8 - bloom.vector_size
    first = 13 if kind is BloomFilterType.SIMPLE else 13 + 12 + 13
    for row in range(bloom.num_rows):
        raw[first + row * (13 + row_bytes) + row_bytes - 1] |= 0xFF ^ (0xFF >> spare)
    out = base64.b64encode(bytes(raw)).decode("ascii")
    pads = len(out) - len(out.rstrip("="))
    if pads:
        last = len(out) - pads - 1
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        value = alphabet.index(out[last]) | ((1 << (2 * pads)) - 1)
        out = out[:last] + alphabet[value] + out[last + 1 :]
        assert base64.b64decode(out, validate=True) == bytes(raw)
    return out


@pytest.mark.parametrize("kind", list(BloomFilterType))
@pytest.mark.parametrize(("num_entries", "fpp", "keys"), [(10, 0.3, 10), (7, 0.01, 3), (40, 1e-4, 90), (3, 0.2, 2)])
def test_non_canonical_input_gives_the_canonical_text(
    kind: BloomFilterType, num_entries: int, fpp: float, keys: int
) -> None:
    config = BloomFilterConfig(num_entries=num_entries, fpp=fpp, filter_type=kind, dynamic_max_entries=100)
    text = _with_spare_bits_and_loose_padding(
        BloomFilter.from_keys([f"k{i}" for i in range(keys)], config).serialize(), kind
    )
    for added in ([], ["x", "y", "z"]):
        patched = SerializedBloom.parse(text, kind).with_keys(added, max_entries=100)
        _assert_same(patched, _decoded_path(text, kind, added, 100))


def _outcome(fn: object) -> str:
    try:
        fn()  # type: ignore[operator]
    except BloomFilterFormatError:
        return "error"
    return "ok"


@settings(max_examples=300, deadline=None)
@given(
    kind=TYPES,
    keys=st.integers(0, 6),
    data=st.data(),
)
def test_damaged_text_fails_as_the_full_decoder_does(kind: BloomFilterType, keys: int, data: st.DataObject) -> None:
    # Tiny filters keep the padding area within reach of every mutation.
    config = BloomFilterConfig(num_entries=2, fpp=0.4, filter_type=kind, dynamic_max_entries=6)
    text = BloomFilter.from_keys([f"k{i}" for i in range(keys)], config).serialize()
    action = data.draw(st.sampled_from(["replace", "truncate", "append", "delete", "insert"]))
    at = data.draw(st.integers(0, len(text)))
    if action == "replace" and at < len(text):
        text = text[:at] + data.draw(DAMAGE) + text[at + 1 :]
    elif action == "truncate":
        text = text[:at]
    elif action == "append":
        text += "".join(data.draw(st.lists(DAMAGE, min_size=1, max_size=4)))
    elif action == "delete" and at < len(text):
        text = text[:at] + text[at + 1 :]
    else:
        text = text[:at] + data.draw(DAMAGE) + text[at:]
    for given_text in (text, text.encode("utf-8")):
        expected = _outcome(lambda t=given_text: BloomFilter.deserialize(t, kind))
        assert _outcome(lambda t=given_text: SerializedBloom.parse(t, kind)) == expected
        if expected == "ok" and SerializedBloom.parse(given_text, kind).nb_hash <= 64:  # a damaged count hashes long
            added = _outcome(lambda t=given_text: _decoded_path(t, kind, ["a"], 6))  # a damaged hash type
            parsed = SerializedBloom.parse(given_text, kind)
            assert _outcome(lambda p=parsed: p.with_keys(["a"], max_entries=6)) == added
            if added == "ok":
                _assert_same(parsed.with_keys(["a"], max_entries=6), _decoded_path(given_text, kind, ["a"], 6))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="AQgw+=/x\n", max_size=14))
def test_base64_strictness_matches_b64decode_validate(text: str) -> None:
    # Only the text check can differ on arbitrary strings: both reject what is not a filter.
    try:
        base64.b64decode(text, validate=True)
        strict_ok = True
    except (binascii.Error, ValueError):
        strict_ok = False
    message = ""
    try:
        SerializedBloom.parse(text)
    except BloomFilterFormatError as e:
        message = str(e)
    assert message  # no such short text is a filter
    assert ("base64" in message) is not strict_ok


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: t[:-4],  # truncated by a group
        lambda t: t[:-1],  # wrong length
        lambda t: t[:100] + b"*" + t[101:],  # a character outside the alphabet
        lambda t: t[:100] + b"=" + t[101:],  # padding in the middle
        lambda t: t + b"AAAA",  # trailing bytes
        lambda t: b"",  # an empty entry is no filter at all
        lambda t: base64.b64encode(base64.b64decode(t)[:-1]),  # well-formed base64, truncated filter
        # a damaged row count: typed errors, not an attempt to allocate rows x row bytes
        lambda t: base64.b64encode(base64.b64decode(t)[:21] + struct.pack(">i", 2**26) + base64.b64decode(t)[25:]),
    ],
)
def test_unreadable_previous_filter_is_rebuilt(damage: object) -> None:
    config = BloomFilterConfig(num_entries=40, fpp=1e-4, dynamic_max_entries=120)
    old = [f"k{i:03d}" for i in range(60)]
    footer = bloom_footer_metadata(old, config)
    damaged = {**footer, BLOOM_FILTER_KEY: damage(footer[BLOOM_FILTER_KEY])}  # type: ignore[operator]
    if damaged[BLOOM_FILTER_KEY]:
        with pytest.raises(BloomFilterFormatError):
            read_key_footer(damaged)
    assert carried_bloom(damaged, config, live_rows=60, added=pa.array([], pa.string())) is None


@settings(max_examples=40, deadline=None)
@given(
    old=st.lists(st.text(alphabet="abcdef", min_size=1, max_size=6), unique=True, min_size=1, max_size=90),
    data=st.data(),
)
def test_carried_footer_equals_the_decoded_carry(old: list[str], data: st.DataObject) -> None:
    config = BloomFilterConfig(num_entries=40, fpp=1e-4, dynamic_max_entries=120)
    inserted = [
        k for k in data.draw(st.lists(st.text(alphabet="abcdefg", min_size=1, max_size=6), unique=True)) if k not in old
    ]
    live = old + inserted
    previous = bloom_footer_metadata(old, config)
    carried = carried_bloom(previous, config, live_rows=len(live), added=pa.array(inserted, pa.string()))
    assert carried is not None
    footer = bloom_footer_metadata(live, config, bloom=carried)
    decoded = _decoded_path(previous[BLOOM_FILTER_KEY], BloomFilterType.DYNAMIC_V0, inserted, 120)
    assert footer == bloom_footer_metadata(live, config, bloom=decoded)
    back = read_key_footer(footer).bloom
    assert back is not None
    assert back.might_contain(live).all()


def test_keys_are_checked_as_bloom_filter_add_checks_them() -> None:
    parsed = SerializedBloom.parse(BloomFilter.from_keys(["a"]).serialize(), BloomFilterType.DYNAMIC_V0)
    with pytest.raises(ValueError, match="empty"):
        parsed.with_keys(["b", ""], max_entries=100_000)
    with pytest.raises(ValueError, match="null"):
        parsed.with_keys(pa.array(["b", None]), max_entries=100_000)
    assert np.array_equal(parsed.with_keys([], max_entries=100_000).might_contain(["a"]), [True])
