"""The lease object ``.hoodie/.locks/table_lock.json``: who holds the table lock, until when."""

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
        """JSON bytes, keys sorted."""
        return json.dumps(asdict(self), sort_keys=True).encode()

    @classmethod
    def decode(cls, data: bytes) -> LeaseRecord | None:
        """Parse the object; None when it is not a lease this provider wrote (then it is taken over)."""
        try:
            raw = json.loads(data)
            return cls(
                owner=str(raw["owner"]),
                expiration=int(raw["expiration"]),
                expired=bool(raw["expired"]),
                generation=int(raw.get("generation", 0)),
                table=str(raw.get("table", "")),
            )
        except (ValueError, KeyError, TypeError):
            return None

    def is_free(self, now_ms: int, margin_ms: int) -> bool:
        """Released, or expired for longer than the clock-drift margin."""
        return self.expired or now_ms > self.expiration + margin_ms
