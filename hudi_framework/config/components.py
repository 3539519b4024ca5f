"""``ComponentRef``: a plugin component chosen by its registered name, with its own options.

The kernel never validates a component's options itself: ``options`` stays a free JSON mapping
here and is checked later by the component's own options model through
``ComponentRegistry.build(kind, ref.name, ref.options)``, which raises ``PluginConfigError`` naming
the component and the field path.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

__all__ = ["ComponentName", "ComponentOptions", "ComponentRef"]

#: A registered component name: kebab-case (``event-time-ordering``). Names can be persisted, so
#: plugins never rename them.
ComponentName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=100)]

#: Free options handed to a component's own options model.
ComponentOptions = dict[str, JsonValue]


class ComponentRef(BaseModel):
    """A component chosen by registered name, plus options for its own options model.

    A bare string is accepted as shorthand for ``{name = "..."}``, so TOML can say
    ``key_generator = "timestamp"`` and the environment ``HUDI_TABLE__KEY_GENERATOR=timestamp``.

    Attributes:
        name: The component's registered (kebab-case) name.
        options: Options validated by the component's own options model when it is built.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    name: ComponentName
    options: ComponentOptions = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value
