"""The union members :mod:`hudi_framework.metadata.stat_values` reads as dates are the date wrappers of
the metadata record schema the reader decodes with."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pyarrow as pa

from hudi_framework.metadata.stat_values import DAYS_MEMBERS, stat_values


def _min_value_branches() -> list[str]:
    schema = json.loads(
        resources.files("hudi_framework.metadata.schemas").joinpath("HoodieMetadataRecord.avsc").read_text()
    )

    def find(node: Any) -> list[str] | None:
        if isinstance(node, list):
            for item in node:
                if (found := find(item)) is not None:
                    return found
        elif isinstance(node, dict):
            for field in node.get("fields") or ():
                if field["name"] == "minValue":
                    return [b if isinstance(b, str) else b["name"] for b in field["type"] if b != "null"]
                if (found := find(field["type"])) is not None:
                    return found
        return None

    branches = find(schema)
    assert branches is not None
    return branches


def test_the_days_members_are_the_date_wrappers() -> None:
    branches = _min_value_branches()
    assert [branches[int(m.removeprefix("member"))] for m in DAYS_MEMBERS] == ["DateWrapper", "LocalDateWrapper"]


def test_days_in_a_date_wrapper_read_as_dates() -> None:
    member = pa.StructArray.from_arrays([pa.array([19723, None], pa.int32())], names=["value"])
    other = pa.nulls(2, pa.struct([("value", pa.int32())]))
    names = [f"member{i}" for i in range(8)]
    arrays = [other] * 7 + [member]
    wrapped = pa.StructArray.from_arrays(arrays, names=names)
    assert stat_values(wrapped).to_pylist()[0].isoformat() == "2024-01-01"
    ints = pa.StructArray.from_arrays([member, *[other] * 7], names=names)  # IntWrapper: stays a number
    assert stat_values(ints).to_pylist() == [19723, None]
