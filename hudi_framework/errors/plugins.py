"""Plugin errors: loading entry points and resolving components."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError

__all__ = [
    "ComponentLoadError",
    "DuplicateComponentError",
    "MergeStrategyNotFoundError",
    "PluginError",
    "PluginLoadError",
    "UnknownComponentError",
]


class PluginError(HudiError):
    """A plugin could not be loaded or resolved."""


class PluginLoadError(PluginError):
    """An entry point failed to import or register."""

    def __init__(self, dist: str, entry_point: str, cause: BaseException) -> None:
        self.dist = dist
        self.entry_point = entry_point
        super().__init__(
            f"plugin entry point {entry_point!r} of distribution {dist!r} failed to load: "
            f"{type(cause).__name__}: {cause}"
        )


class ComponentLoadError(PluginError):
    """A component's lazily imported factory or options model (a ``"module:attribute"`` reference)
    failed to import."""

    def __init__(self, component: str, reference: str, cause: BaseException) -> None:
        self.component = component
        self.reference = reference
        super().__init__(f"component {component!r}: cannot load {reference!r}: {type(cause).__name__}: {cause}")


class UnknownComponentError(PluginError, LookupError):
    """No installed plugin provides a component of this kind and name."""

    def __init__(self, kind: str, name: str, installed: Sequence[str]) -> None:
        self.kind = kind
        self.name = name
        self.installed = tuple(installed)
        listing = ", ".join(self.installed) if self.installed else "none"
        super().__init__(f"no {kind} named {name!r} is installed; installed {kind}s: {listing}")

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateComponentError(PluginError):
    """Two plugins register one component name."""

    def __init__(self, kind: str, name: str, first: str, second: str) -> None:
        self.kind = kind
        self.name = name
        self.first = first
        self.second = second
        super().__init__(f"{kind} {name!r} is registered twice: by {first} and by {second}")


class MergeStrategyNotFoundError(PluginError, LookupError):
    """No installed record merger plugin implements the table's merge strategy UUID."""

    def __init__(self, strategy_id: str, installed: Sequence[str]) -> None:
        self.strategy_id = strategy_id
        self.installed = tuple(installed)
        listing = ", ".join(self.installed) if self.installed else "none"
        super().__init__(
            f"no installed record merger implements merge strategy {strategy_id} "
            f"(hoodie.record.merge.strategy.id); install the plugin that provides it. "
            f"Installed strategies: {listing}"
        )

    def __str__(self) -> str:
        return str(self.args[0])
