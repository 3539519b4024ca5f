"""What the shipped indexes share: options with the footer bloom filter sizing, and their plumbing."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from pydantic import Field
from typing_extensions import override

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterConfig

__all__ = ["IndexOptions", "OptionsBackedIndex", "OptionsT"]


class IndexOptions(BloomFilterConfig):
    """Options every shipped index takes.

    The bloom filter fields (inherited) size the filter the writer puts in every base file footer,
    which Apache Hudi writes whatever the index type.
    """

    update_partition_path: bool = Field(default=True)
    """``hoodie.bloom.index.update.partition.path`` / ``hoodie.simple.index.update.partition.path``
    (global indexes only): a key arriving in another partition is moved there (deleted from the old
    one); False keeps it in its old partition."""

    def filter_config(self) -> BloomFilterConfig:
        """The bloom filter part of the options."""
        return BloomFilterConfig.model_validate(self.model_dump(include=set(BloomFilterConfig.model_fields)))


OptionsT = TypeVar("OptionsT", bound=IndexOptions)


class OptionsBackedIndex(RecordIndex, Generic[OptionsT]):
    """A non-global index holding only its validated options (so it stays picklable)."""

    #: The options model, used when no options are given.
    options_type: ClassVar[type[IndexOptions]] = IndexOptions

    def __init__(self, options: OptionsT | None = None) -> None:
        """Keep the validated options."""
        self._options: OptionsT = options if options is not None else self.options_type()  # type: ignore[assignment]

    @property
    def options(self) -> OptionsT:
        """The validated options."""
        return self._options

    @property
    @override
    def is_global(self) -> bool:
        """False: a key is unique within its partition."""
        return False

    @property
    @override
    def update_partition_path(self) -> bool:
        """See :class:`IndexOptions`."""
        return self._options.update_partition_path

    @property
    @override
    def bloom_filter_config(self) -> BloomFilterConfig:
        """Footer bloom filter sizing from the options."""
        return self._options.filter_config()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._options!r})"
