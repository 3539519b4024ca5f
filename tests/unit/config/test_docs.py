"""``docs/configuration.md`` documents every field and every Apache Hudi key; modules stay small."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from hudi_framework.config import HudiSettings
from hudi_framework.config.base import Section
from hudi_framework.config.hoodie_keys import HOODIE_KEYS, IGNORED_KEYS

ROOT = Path(__file__).resolve().parents[3]
DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def _field_paths(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[str]:
    paths = []
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        if isinstance(info.annotation, type) and issubclass(info.annotation, Section):
            paths += _field_paths(info.annotation, path)
        else:
            paths.append(".".join(path))
    return paths


def test_every_field_is_documented() -> None:
    missing = [p for p in _field_paths(HudiSettings) if f"`{p}`" not in DOC]
    assert missing == []


def test_every_hoodie_key_is_documented() -> None:
    keys = [k for entry in HOODIE_KEYS for k in entry.keys] + list(IGNORED_KEYS)
    missing = [k for k in keys if f"`{k}`" not in DOC]
    assert missing == []


def test_config_modules_stay_small() -> None:
    for module in (ROOT / "hudi_framework" / "config").glob("*.py"):
        assert len(module.read_text(encoding="utf-8").splitlines()) < 500, module.name


def test_every_structured_streaming_option_is_documented() -> None:
    from hudi_framework.spark.options import STREAM_READ_KEYS, STREAM_WRITE_KEYS

    spark_doc = (ROOT / "docs" / "spark.md").read_text(encoding="utf-8").lower()
    for key in sorted(STREAM_READ_KEYS | STREAM_WRITE_KEYS):
        assert f"`{key}`" in DOC.lower(), key
        assert f"`{key}`" in spark_doc, key
