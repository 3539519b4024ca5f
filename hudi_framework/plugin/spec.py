"""``ComponentSpec``: what a plugin registers for each component it provides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

T_co = TypeVar("T_co", covariant=True)


class NoOptions(BaseModel):
    """Options model of a component that takes no options."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True, slots=True)
class ComponentSpec(Generic[T_co]):
    """A named, configurable component provided by a plugin.

    Attributes:
        name: Public kebab-case name users put in config (for example ``"local"``). Unique per kind
            across all installed plugins; it may be persisted, so never rename it.
        factory: Builds the component from its validated options.
        options_model: The pydantic model the component's ``options`` are validated against.
        description: One line shown by ``hudi-fw plugins``.
        aliases: Extra names that resolve to this component (for example Apache Hudi's class names).
    """

    name: str
    factory: Callable[[Any], T_co]
    options_model: type[BaseModel] = NoOptions
    description: str = ""
    aliases: tuple[str, ...] = field(default=())
