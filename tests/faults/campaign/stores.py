"""Where trial tables live: a local directory, or a bucket on the moto server (127.0.0.1).

A store makes fresh base paths, copies a template table to one (local: ``copytree``, which keeps
modification times, the completion times of layout-1 timelines; S3: server-side copies), lists
everything under a base path for :mod:`tests.faults.campaign.inventory`, and opens and reads tables.
"""

from __future__ import annotations

import itertools
import shutil
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Final

from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing import DUMMY_AWS_ENV
from tests.faults.campaign.inventory import Listing, local_listing
from tests.faults.campaign.scenarios import Rows, StorageOptions
from tests.faults.s3_faults import FAST_RETRY, admin_client, hudi_rs, ours, s3_options

#: S3 retries of campaign writers: three attempts, so a 10 % fault rate sometimes exhausts them.
CAMPAIGN_RETRY: Final = {**FAST_RETRY, "max_attempts": 3}


class Store(ABC):
    """Trial tables on one kind of storage."""

    #: ``local`` or ``s3``.
    name: str = ""

    def __init__(self) -> None:
        self._serial = itertools.count()

    @abstractmethod
    def new_base(self, label: str) -> str:
        """A fresh, empty base path."""

    @abstractmethod
    def copy(self, source: str, target: str) -> None:
        """Copy the table at ``source`` to ``target``."""

    @abstractmethod
    def listing(self, base: str) -> Listing:
        """Everything stored under ``base``."""

    @property
    @abstractmethod
    def storage_options(self) -> StorageOptions:
        """Backend options of every table of this store."""

    @property
    def env(self) -> dict[str, str]:
        """Environment a child needs to reach this store."""
        return {}

    def strip(self, base: str) -> str:
        """The prefix point labels drop (the base path, or the object-key prefix)."""
        return base

    def open(self, base: str) -> HudiTable:
        return HudiTable.open(base, storage_options=self.storage_options)

    def ours(self, base: str) -> Rows:
        """The table's rows as our reader returns them."""
        return ours(base, self.storage_options)

    @abstractmethod
    def hudi_rs(self, base: str) -> Rows:
        """The table's rows as hudi-rs returns them."""

    def _next(self, label: str) -> str:
        return f"{next(self._serial):04d}-{label}"


class LocalStore(Store):
    """Tables in directories under ``root``."""

    name = "local"

    def __init__(self, root: Path) -> None:
        super().__init__()
        self._root = root

    def new_base(self, label: str) -> str:
        return str(self._root / self._next(label) / "t")

    def copy(self, source: str, target: str) -> None:
        shutil.copytree(source, target, symlinks=True)

    def listing(self, base: str) -> Listing:
        return local_listing(Path(base))

    @property
    def storage_options(self) -> StorageOptions:
        return None

    def hudi_rs(self, base: str) -> Rows:
        return hudi_rs(base)


class S3Store(Store):
    """Tables under prefixes of one bucket on the moto server at ``endpoint``."""

    name = "s3"

    def __init__(self, endpoint: str, bucket: str) -> None:
        super().__init__()
        self._endpoint = endpoint
        self._bucket = bucket
        self._client = admin_client(endpoint)

    def _prefix(self, base: str) -> str:
        return base[len(f"s3://{self._bucket}/") :].rstrip("/") + "/"

    def new_base(self, label: str) -> str:
        return f"s3://{self._bucket}/{self._next(label)}/t"

    def _keys(self, prefix: str) -> list[str]:
        pages = self._client.get_paginator("list_objects_v2").paginate(Bucket=self._bucket, Prefix=prefix)
        return [obj["Key"] for page in pages for obj in page.get("Contents", [])]

    def copy(self, source: str, target: str) -> None:
        src, dst = self._prefix(source), self._prefix(target)
        for key in self._keys(src):
            self._client.copy_object(
                Bucket=self._bucket, Key=dst + key[len(src) :], CopySource={"Bucket": self._bucket, "Key": key}
            )

    def listing(self, base: str) -> Listing:
        prefix = self._prefix(base)
        files = frozenset(key[len(prefix) :] for key in self._keys(prefix))
        uploads = self._client.list_multipart_uploads(Bucket=self._bucket, Prefix=prefix).get("Uploads", [])
        return Listing(files, uploads=tuple(sorted(u["Key"][len(prefix) :] for u in uploads)))

    @property
    def storage_options(self) -> StorageOptions:
        return s3_options(self._endpoint, **CAMPAIGN_RETRY)

    @property
    def env(self) -> dict[str, str]:
        return dict(DUMMY_AWS_ENV)

    def strip(self, base: str) -> str:
        return self._prefix(base)

    def hudi_rs(self, base: str) -> Rows:
        return hudi_rs(base, self._endpoint)
