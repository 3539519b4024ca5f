"""Options of the ``storage`` lock (``hoodie.write.lock.storage.*``)."""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class StorageLockOptions(BaseModel):
    """Lease timing of the ``storage`` lock; seconds may be fractional (tests use 1-2 s leases)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: How long one acquisition or renewal keeps the lease
    #: (``hoodie.write.lock.storage.validity.timeout.secs``).
    validity_timeout_secs: float = Field(default=300.0, gt=0)
    #: Time between heartbeat renewals (``hoodie.write.lock.storage.renew.interval.secs``).
    renew_interval_secs: float = Field(default=30.0, gt=0)
    #: Largest clock difference tolerated between writers' hosts: a holder stops trusting its lease
    #: this long before it expires, others take it over only this long after.
    clock_drift_margin_secs: float = Field(default=5.0, ge=0)
    #: How often a waiting writer reads the lease again.
    poll_interval_secs: float = Field(default=1.0, gt=0)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.renew_interval_secs + self.clock_drift_margin_secs >= self.validity_timeout_secs:
            raise ValueError(
                "renew_interval_secs + clock_drift_margin_secs must stay below validity_timeout_secs, "
                "or the lease lapses between renewals"
            )
        return self
