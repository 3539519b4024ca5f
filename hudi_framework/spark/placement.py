"""Placing each write target in its own Spark partition.

``repartition(n, col)`` sends a row to partition ``pmod(murmur3(col, seed=42), n)``. Hashing target
ids ``0..n-1`` directly leaves about a third of the partitions empty and doubles up others, so a
write task would rewrite several file groups in turn while cores sit idle. Instead every row gets
a *slot* value chosen so that the target ``t`` lands in partition ``t mod n``:
:func:`partition_slots` finds, for each partition, the smallest non-negative int Spark hashes
there. This mirrors Spark's ``Murmur3_x86_32.hashInt``; if Spark ever hashed differently, rows of
one target would still share one partition (correctness does not depend on it, only balance).
"""

from __future__ import annotations

from typing import Final

__all__ = ["partition_slots", "spark_int_hash"]

_MASK: Final = 0xFFFFFFFF
_SEED: Final = 42  # HashPartitioning's Murmur3Hash seed


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def spark_int_hash(value: int, seed: int = _SEED) -> int:
    """Spark's ``hash()`` of an ``int`` column value (signed 32-bit Murmur3 x86)."""
    k1 = (value & _MASK) * 0xCC9E2D51 & _MASK
    k1 = _rotl(k1, 15) * 0x1B873593 & _MASK
    h1 = _rotl((seed & _MASK) ^ k1, 13)
    h1 = (h1 * 5 + 0xE6546B64) & _MASK
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _MASK
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


def partition_slots(num_partitions: int) -> tuple[int, ...]:
    """For each partition ``p < num_partitions``, an int that ``repartition(num_partitions, col)`` sends to ``p``."""
    slots: dict[int, int] = {}
    candidate = 0
    while len(slots) < num_partitions:
        slots.setdefault(spark_int_hash(candidate) % num_partitions, candidate)
        candidate += 1
    return tuple(slots[p] for p in range(num_partitions))
