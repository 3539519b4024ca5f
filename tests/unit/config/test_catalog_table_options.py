"""``format("hudi")`` options of a catalog table (``CREATE TABLE ... USING hudi LOCATION``): Spark adds
the location, owner and provider; they are not Hudi settings, and the location's Hadoop form
``file:/data/t`` is the table's URI. Without any path the error names the temporary view that works."""

from __future__ import annotations

import pytest

from hudi_framework.errors import ConfigError
from hudi_framework.spark.options import SourceOptions


def test_catalog_keys_are_not_settings_and_the_location_is_the_path() -> None:
    parsed = SourceOptions.parse({"location": "file:/data/t", "owner": "me", "provider": "hudi"})
    assert parsed.path == "file:///data/t"
    assert parsed.resolved is None
    assert dict(parsed.hoodie) == {}


@pytest.mark.parametrize(
    ("given", "path"),
    [("file:/data/t", "file:///data/t"), ("file:///data/t", "file:///data/t"), ("/data/t", "/data/t"),
     ("s3://b/t", "s3://b/t")],
)  # fmt: skip
def test_paths_in_hadoop_form_become_uris(given: str, path: str) -> None:
    assert SourceOptions.parse({"path": given}).path == path


def test_no_path_names_the_temporary_view() -> None:
    with pytest.raises(ConfigError, match="TEMPORARY VIEW"):
        SourceOptions.parse({})
