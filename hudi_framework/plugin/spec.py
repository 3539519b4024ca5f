"""``ComponentSpec``: what a plugin registers for each component it provides."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from hudi_framework.errors import ComponentLoadError

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
        factory: Builds the component from its validated options; or a ``"module:attribute"``
            reference to it, imported when the component is first built (:meth:`load_factory`).
        options_model: The pydantic model the component's ``options`` are validated against (or
            such a reference to it).
        description: One line shown by ``hudi-fw plugins``.
        aliases: Extra names that resolve to this component (for example Apache Hudi's class names).
        settings_section: A typed section of the kind's settings whose fields the component's
            options model also takes: the fields a user set there (in config, ``HUDI_*``
            variables or the Apache Hudi and Hadoop keys mapped onto them) join its options. The
            ``s3`` storage backend declares ``"s3"``, so ``storage.s3`` reaches it.
    """

    name: str
    factory: Callable[[Any], T_co] | str
    options_model: type[BaseModel] | str = NoOptions
    description: str = ""
    aliases: tuple[str, ...] = field(default=())
    settings_section: str | None = None

    def __post_init__(self) -> None:
        for reference in (self.factory, self.options_model):
            if isinstance(reference, str):
                _split(reference, self.name)  # a malformed reference fails at registration

    def load_factory(self) -> Callable[[Any], T_co]:
        """The factory, imported now if the plugin gave it as a ``"module:attribute"`` reference."""
        if isinstance(self.factory, str):
            loaded: Callable[[Any], T_co] = _resolve(self.factory, self.name)
            return loaded
        return self.factory

    def load_options_model(self) -> type[BaseModel]:
        """The options model, imported now if given as a ``"module:attribute"`` reference.

        Raises:
            ComponentLoadError: The reference does not import, or is not a pydantic model.
        """
        if not isinstance(self.options_model, str):
            return self.options_model
        model = _resolve(self.options_model, self.name)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ComponentLoadError(self.name, self.options_model, TypeError(f"{model!r} is not a pydantic model"))
        return model


def _split(reference: str, component: str) -> tuple[str, str]:
    module, sep, attribute = reference.partition(":")
    if not (sep and module and attribute):
        raise ComponentLoadError(component, reference, ValueError("expected 'package.module:attribute'"))
    return module, attribute


def _resolve(reference: str, component: str) -> Any:
    """Import a ``"module:attribute"`` reference.

    Plugins name their implementation this way so that building a plugin manager imports only
    each plugin's small entry module; the implementation (and what it imports: boto3, ...) loads
    when a table first builds that component. Python caches the import, so repeated calls are
    dictionary lookups.
    """
    module, attribute = _split(reference, component)
    try:
        value: Any = importlib.import_module(module)
        for part in attribute.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as e:
        raise ComponentLoadError(component, reference, e) from e
    return value
