"""Options of the ``dynamodb`` lock (``hoodie.write.lock.dynamodb.*``)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class DynamoDBLockOptions(BaseModel):
    """Where the lock items live and how long a lease lasts.

    Credentials come from the AWS default chain (environment, web identity, instance profile);
    they never go in these options.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The DynamoDB table holding one lock item per Hudi table (``hoodie.write.lock.dynamodb.table``).
    table: str = Field(min_length=3, max_length=255, pattern=r"^[A-Za-z0-9_.-]+$")
    #: The lock item's key; defaults to the Hudi table name (``hoodie.write.lock.dynamodb.partition_key``).
    partition_key: str | None = Field(default=None, min_length=1)
    #: AWS region; None lets boto3 resolve it (``hoodie.write.lock.dynamodb.region``).
    region: str | None = Field(default=None, min_length=1)
    #: Endpoint override, for DynamoDB Local or moto (``hoodie.write.lock.dynamodb.endpoint_url``).
    endpoint_url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    #: Billing mode of an auto-created table (``hoodie.write.lock.dynamodb.billing_mode``).
    billing_mode: Literal["PAY_PER_REQUEST", "PROVISIONED"] = "PAY_PER_REQUEST"
    #: Provisioned read capacity of an auto-created table (``PROVISIONED`` only).
    read_capacity: int = Field(default=20, ge=1)
    #: Provisioned write capacity of an auto-created table (``PROVISIONED`` only).
    write_capacity: int = Field(default=10, ge=1)
    #: How long to wait for an auto-created table to become active, in milliseconds
    #: (``hoodie.write.lock.dynamodb.table_creation_timeout``).
    table_creation_timeout: int = Field(default=120_000, ge=1_000)
    #: Create the table when it does not exist; when False a missing table is an error.
    create_table: bool = True
    #: How long a lease lasts without a heartbeat; a waiter takes the lock over after seeing the
    #: same record version number unchanged for this long (by its own clock).
    lease_duration_secs: float = Field(default=20.0, gt=0)
    #: Time between heartbeats (each one writes a new record version number).
    heartbeat_interval_secs: float = Field(default=5.0, gt=0)
    #: Safety margin on both sides of the lease (holder gives up early, waiters take over late).
    margin_secs: float = Field(default=1.0, ge=0)
    #: How often a waiting writer reads the lock item again.
    poll_interval_secs: float = Field(default=1.0, gt=0)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.heartbeat_interval_secs + self.margin_secs >= self.lease_duration_secs:
            raise ValueError("heartbeat_interval_secs + margin_secs must stay below lease_duration_secs")
        return self
