"""The Spark session's own S3A settings (``spark.hadoop.fs.s3a.*``) against the table's storage.

Spark's S3A client reads those settings; this project's storage does not. They are not adopted:
``format("hudi")`` code runs in Spark's Python workers, which receive the read's options and never
the session's configuration, so a write client that adopted them would reach other storage than a
read in the same session. But a session configured for an endpoint shows where the user means S3
to be, so a write client refuses to send the table's requests anywhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hudi_framework.config.hoodie_keys import lookup
from hudi_framework.errors import ConfigError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from hudi_framework.storage.resolve import StorageSpec

__all__ = ["check_session_s3"]

#: Session keys that decide where requests go (the endpoint, or AWS's endpoint of the region).
_WHERE: Final = ("spark.hadoop.fs.s3a.endpoint", "spark.hadoop.fs.s3a.endpoint.region")


def check_session_s3(spark: SparkSession, storage: StorageSpec, section: str | None) -> None:
    """Refuse an S3 table whose storage goes elsewhere than the session's S3A endpoint or region.

    Args:
        spark: The session the write runs in.
        storage: How the table's storage is opened (its ``options`` hold the ``storage.s3`` fields).
        section: The storage settings section the table's backend declares; the session's keys
            matter only for the backend that takes the section they map onto (``storage.s3``).

    Raises:
        ConfigError: The session sets ``spark.hadoop.fs.s3a.endpoint`` or ``...endpoint.region``
            and the table's storage has that field unset or set otherwise.
    """
    if section is None:
        return
    for key in _WHERE:
        value = spark.conf.get(key, None)
        entry = lookup(key)
        if not value or entry is None or entry.path[:2] != ("storage", section):
            continue
        field = entry.path[-1]
        ours = storage.options.get(field)
        if ours != entry.parse(value):
            state = "is unset" if ours is None else "differs"
            raise ConfigError(
                f"the Spark session sets {key}, which Spark's own S3A client reads but this project's storage "
                f"does not, and storage.s3.{field} {state}: set storage.s3.{field} (or the option "
                f"{key.removeprefix('spark.hadoop.')}) to the same value"
            )
