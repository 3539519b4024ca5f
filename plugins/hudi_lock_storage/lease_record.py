"""The lease object ``.hoodie/.locks/table_lock.json``: who holds the table lock, until when.

The same object, in the same JSON shape, as Apache Hudi's ``StorageBasedLockProvider`` keeps, so
writers of both engines exclude each other on one table.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Final

#: Where the lease lives, relative to the table base path.
LEASE_KEY: Final = ".hoodie/.locks/table_lock.json"


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """One state of the lease object.

    Attributes:
        owner: The holder's writer id.
        expiration: Wall-clock expiry, epoch milliseconds, by the holder's clock.
        expired: True once the holder released it (free for anyone at once).
        generation: Incremented by every acquisition; a fencing token for logs and diagnostics.
        table: The table base path (for humans reading the object).
    """

    owner: str
    expiration: int
    expired: bool
    generation: int
    table: str

    def encode(self) -> bytes:
        """JSON bytes, keys sorted: Apache Hudi's ``StorageLockData`` fields (``expired``,
        ``validUntil``, ``owner``) plus ``generation`` and ``table``, which its reader ignores."""
        fields = asdict(self)
        fields["validUntil"] = fields.pop("expiration")
        return json.dumps(fields, sort_keys=True).encode()

    @classmethod
    def decode(cls, data: bytes) -> LeaseRecord | None:
        """Parse the object, written by us or by Apache Hudi's ``StorageBasedLockProvider``; None when
        it is not a lease at all (then it is taken over)."""
        try:
            raw = json.loads(data)
            # validUntil: Apache Hudi's name, and ours; expiration: leases of earlier versions of ours.
            valid_until = raw["validUntil"] if "validUntil" in raw else raw["expiration"]
            return cls(
                owner=str(raw["owner"]),
                expiration=int(valid_until),
                expired=bool(raw["expired"]),
                generation=int(raw.get("generation", 0)),
                table=str(raw.get("table", "")),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def is_free(self, now_ms: int, margin_ms: int) -> bool:
        """Released, or expired for longer than the clock-drift margin."""
        return self.expired or now_ms > self.expiration + margin_ms
