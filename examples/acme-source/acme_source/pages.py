"""``acme-pages``: an export job drops numbered pages, ``page-000001.json``, ``page-000002.json``...

Each page is a JSON array of records, written once and never changed, and pages are numbered in the
order they are written. So the page number is a natural checkpoint: a batch is the pages after the
checkpoint, in number order, up to the byte limit (at least one page), and the checkpoint reached is
the last page number taken. Replanning from a checkpoint gives the same pages, which is all the
ingestion job needs for exactly-once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Final

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import override

from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.errors import CheckpointError, HudiError, SourceError

NAME: Final = "acme-pages"
_PAGE = re.compile(r"^page-(\d+)\.json$")


class PagesOptions(BaseModel):
    """Where the pages are."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Folder (path or URI: ``/exports/orders``, ``s3://bucket/exports/orders``) holding the pages.
    folder: str = Field(min_length=1)


class PagesSource(Source):
    """Numbered JSON pages in a folder; the checkpoint is the last page number read."""

    def __init__(self, options: PagesOptions) -> None:
        """Read the pages in ``options.folder``."""
        self.options = options

    @override
    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        after = _page_number(checkpoint)
        storage = context.storage(self.options.folder)
        pages = sorted(
            (int(m.group(1)), info.key, info.size)
            for info in storage.list("")
            if (m := _PAGE.match(info.name)) is not None and (after is None or int(m.group(1)) > after)
        )
        taken: list[tuple[int, str, int]] = []
        total = 0
        for number, key, size in pages:
            if taken and limit is not None and total + size > limit:
                break
            taken.append((number, key, size))
            total += size
        if not taken:
            return SourcePlan((), checkpoint)
        splits = tuple(SourceSplit(storage.uri(key), {"key": key}, size) for _, key, size in taken)
        return SourcePlan(splits, str(taken[-1][0]))

    @override
    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        key = split.payload.get("key")
        if not isinstance(key, str):
            raise SourceError(NAME, f"split {split.id!r} names no page")
        try:
            records = json.loads(context.storage(self.options.folder).read(key))
            if not isinstance(records, list):
                raise TypeError("a page must hold a JSON array of records")
            yield pa.RecordBatch.from_pylist(records)
        except (HudiError, ValueError, TypeError, pa.ArrowException) as e:
            raise SourceError(NAME, f"cannot read page {split.id!r}: {e}") from e


def _page_number(checkpoint: str | None) -> int | None:
    if checkpoint is None:
        return None
    if not checkpoint.isdigit():
        raise CheckpointError(NAME, checkpoint, "expected a page number")
    return int(checkpoint)
