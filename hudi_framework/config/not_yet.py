"""Options Apache Hudi has whose feature does not exist here yet: refused, never silently accepted.

A settings field that nothing reads would accept a value and do nothing. Each such field names a
:class:`NotYet` rule on its section; setting it fails validation with an
:class:`~hudi_framework.errors.UnsupportedOptionError` that names the option as the user spelled
it, says why, and names the roadmap item that brings the feature. Such a field defaults to None
(unset: no fake default for a feature that does not run), or to the one value whose behaviour we
already have (``hoodie.clustering.inline=false``: we never cluster), listed in ``accepted``:
setting exactly that is honest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = [
    "ARCHIVAL",
    "CLUSTERING",
    "METADATA_TABLE",
    "NotYet",
    "NotYetError",
]

#: Roadmap items (docs/roadmap), as the error messages name them.
METADATA_TABLE: Final = "the metadata table, data skipping and the record-level index"
ARCHIVAL: Final = "tables that live for years: LSM timeline archival"
CLUSTERING: Final = "tables that live for years: clustering"


@dataclass(frozen=True, slots=True)
class NotYet:
    """A field of a section whose feature is missing.

    Attributes:
        field: The field name in its section.
        reason: What is missing (and what to do instead); never contains the value.
        roadmap: The roadmap item that brings it, if any.
        accepted: Values that may be set because our behaviour is theirs (None, unset, always may).
        refused: When given, only these values are refused (the field works for the others);
            component fields compare by component name.
    """

    field: str
    reason: str
    roadmap: str | None = None
    accepted: tuple[object, ...] = ()
    refused: tuple[object, ...] | None = None

    def rejects(self, value: object) -> bool:
        """Whether ``value`` must be refused."""
        if self.refused is not None:
            return value in self.refused
        return value is not None and value not in self.accepted


class NotYetError(ValueError):
    """Raised inside a section's validation for a :class:`NotYet` field; the settings loader turns
    it into an :class:`~hudi_framework.errors.UnsupportedOptionError` naming the user's key."""

    def __init__(self, rule: NotYet) -> None:
        super().__init__(f"not supported yet: {rule.reason}")
        self.rule = rule
