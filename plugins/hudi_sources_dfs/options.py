"""Options of the DFS sources, under Apache Hudi's keys (``hoodie.streamer.source.dfs.*``, ``hoodie.streamer.csv.*``).

Every field also takes its Apache Hudi keys, the ``hoodie.streamer.*`` spelling and the older
``hoodie.deltastreamer.*`` one, so a HoodieStreamer properties file's entries can be handed over as they are.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

#: The only path selector built: list the root, take files newer than the checkpoint.
DEFAULT_SELECTORS: Final = frozenset(
    {
        "DFSPathSelector",
        "org.apache.hudi.utilities.sources.helpers.DFSPathSelector",
    }
)


def hudi_keys(suffix: str, *, field: str) -> AliasChoices:
    """The field's own name plus Apache Hudi's two spellings of ``hoodie.streamer.<suffix>``."""
    return AliasChoices(field, f"hoodie.streamer.{suffix}", f"hoodie.deltastreamer.{suffix}")


class DfsSourceOptions(BaseModel):
    """Where the landing files are and how new ones are found."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    #: Root URI listed for new files (``hoodie.streamer.source.dfs.root``): a local path,
    #: ``file:///...`` or ``s3://bucket/prefix``.
    root: str = Field(min_length=1, validation_alias=hudi_keys("source.dfs.root", field="root"))
    #: ``hoodie.streamer.source.input.selector``: only the default ``DFSPathSelector`` is built.
    input_selector: str | None = Field(
        default=None, validation_alias=hudi_keys("source.input.selector", field="input_selector")
    )

    #: Leave files alone until their modification time is this many milliseconds old (by this
    #: machine's clock). Stores that keep whole seconds (S3) or show a file under the time its write
    #: began (S3 multipart uploads) can make a file appear with a time at or before a checkpoint
    #: already taken, which would skip it; waiting past the granularity and the longest write
    #: prevents that. 0 takes every file listed, as Apache Hudi does.
    settle_ms: int = Field(default=0, ge=0)

    @field_validator("input_selector")
    @classmethod
    def _known_selector(cls, value: str | None) -> str | None:
        if value is not None and value not in DEFAULT_SELECTORS:
            raise ValueError(f"hoodie.streamer.source.input.selector={value!r} is not supported (only DFSPathSelector)")
        return value


#: Spark CSV options Apache Hudi's CsvDFSSource passes on that this reader does not implement.
UNSUPPORTED_CSV_OPTIONS: Final = (
    "charToEscapeQuoteEscaping",
    "comment",
    "enforceSchema",
    "samplingRatio",
    "ignoreLeadingWhiteSpace",
    "ignoreTrailingWhiteSpace",
    "emptyValue",
    "nanValue",
    "positiveInf",
    "negativeInf",
    "dateFormat",
    "timestampFormat",
    "maxColumns",
    "maxCharsPerColumn",
    "mode",
    "columnNameOfCorruptRecord",
)


def _csv(option: str, field: str) -> AliasChoices:
    return hudi_keys(f"csv.{option}", field=field)


class CsvSourceOptions(DfsSourceOptions):
    """The CSV reader's options: Spark's CSV options under ``hoodie.streamer.csv.<option>``, with Spark's defaults."""

    #: ``hoodie.streamer.csv.sep``: the field separator (one character; ``\\t`` for a tab).
    sep: str = Field(default=",", validation_alias=_csv("sep", "sep"))
    #: ``hoodie.streamer.csv.header``: the first line names the columns; else ``_c0``, ``_c1``... (Spark's names).
    header: bool = Field(default=False, validation_alias=_csv("header", "header"))
    #: ``hoodie.streamer.csv.quote``: the quote character.
    quote: str = Field(default='"', validation_alias=_csv("quote", "quote"))
    #: ``hoodie.streamer.csv.escape``: the escape character inside quoted values.
    escape: str = Field(default="\\", validation_alias=_csv("escape", "escape"))
    #: ``hoodie.streamer.csv.nullValue``: the text of a null value.
    null_value: str = Field(default="", validation_alias=_csv("nullValue", "null_value"))
    #: ``hoodie.streamer.csv.encoding``: the files' character set.
    encoding: str = Field(default="UTF-8", validation_alias=_csv("encoding", "encoding"))
    #: ``hoodie.streamer.csv.multiLine``: quoted values may span lines.
    multi_line: bool = Field(default=False, validation_alias=_csv("multiLine", "multi_line"))
    #: ``hoodie.streamer.csv.inferSchema``: infer column types (Apache Hudi's default without a schema
    #: provider); false reads every column as a string.
    infer_schema: bool = Field(default=True, validation_alias=_csv("inferSchema", "infer_schema"))

    @model_validator(mode="before")
    @classmethod
    def _refuse_unsupported(cls, values: Any) -> Any:
        if isinstance(values, dict):
            for option in UNSUPPORTED_CSV_OPTIONS:
                for prefix in ("hoodie.streamer.csv.", "hoodie.deltastreamer.csv."):
                    if prefix + option in values:
                        raise ValueError(f"{prefix}{option} is not supported by this CSV reader")
        return values

    @field_validator("sep", "quote", "escape")
    @classmethod
    def _one_character(cls, value: str) -> str:
        text = "\t" if value == "\\t" else value
        if len(text) != 1:
            raise ValueError(f"expected one character, got {value!r}")
        return text
