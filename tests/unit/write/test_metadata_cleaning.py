"""The MDT cleaner's retention (Apache Hudi's ``HoodieMetadataWriteUtils``) and its choice of slices."""

from __future__ import annotations

import pytest

from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.vocabulary import CleanerPolicy
from hudi_framework.write.metadata_cleaning import MetadataCleanRetention, _to_clean

GROUP = FileGroupId("files", "files-0000-0")


def _slices(*bases: str) -> list[FileSlice]:
    return [FileSlice(GROUP, base) for base in bases]


@pytest.mark.parametrize(("data", "mdt"), [(1, 20), (10, 20), (16, 20), (17, 20), (18, 21), (30, 36)])
def test_commits_retained_is_at_least_twenty_and_a_fifth_more(data: int, mdt: int) -> None:
    assert MetadataCleanRetention(commits_retained=data).mdt_commits == mdt


@pytest.mark.parametrize(("data", "mdt"), [(1, 2), (3, 4), (5, 6), (10, 12)])
def test_versions_and_hours_are_rounded_up(data: int, mdt: int) -> None:
    assert MetadataCleanRetention(file_versions_retained=data).mdt_versions == mdt
    assert MetadataCleanRetention(hours_retained=data).mdt_hours == mdt


def test_from_values_reads_apache_hudis_keys_and_defaults() -> None:
    assert MetadataCleanRetention.from_values({}) == MetadataCleanRetention()
    got = MetadataCleanRetention.from_values(
        {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "5"}
    )
    assert (got.policy, got.file_versions_retained) == (CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, 5)


def test_by_commits_keeps_the_latest_and_the_slice_serving_the_earliest_retained_commit() -> None:
    slices = _slices("001", "005", "009", "013")
    by_commits = MetadataCleanRetention()
    assert [s.base_instant_time for s in _to_clean(slices, by_commits, "010")] == ["001", "005"]
    assert [s.base_instant_time for s in _to_clean(slices, by_commits, "006")] == ["001"]
    assert _to_clean(slices, by_commits, "002") == []
    # Never the latest slice, even when every slice is older than the retained commit.
    assert [s.base_instant_time for s in _to_clean(slices, by_commits, "099")] == ["001", "005"]
    assert _to_clean(_slices("001"), by_commits, "099") == []


def test_by_versions_keeps_the_newest_slices() -> None:
    slices = _slices("001", "005", "009", "013")
    keep_two = MetadataCleanRetention(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=1)
    assert [s.base_instant_time for s in _to_clean(slices, keep_two, None)] == ["001", "005"]
    keep_four = MetadataCleanRetention(CleanerPolicy.KEEP_LATEST_FILE_VERSIONS, file_versions_retained=3)
    assert _to_clean(slices, keep_four, None) == []
