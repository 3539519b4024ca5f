"""Options of the ``filesystem`` lock (``hoodie.write.lock.filesystem.*``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FileSystemLockOptions(BaseModel):
    """Where the lock file lives and when an abandoned one may be removed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Directory of the ``lock`` file (``hoodie.write.lock.filesystem.path``); None means the table's
    #: ``.hoodie`` folder, Apache Hudi's default. It must lie inside the table's base path.
    path: str | None = Field(default=None, min_length=1)
    #: Minutes after its last modification when a lock file counts as abandoned and is removed by the
    #: next writer (``hoodie.write.lock.filesystem.expire``); 0 keeps it until its holder deletes it.
    expire: int = Field(default=0, ge=0)
    #: How often a waiting writer looks at the lock file again.
    poll_interval_secs: float = Field(default=0.5, gt=0)
