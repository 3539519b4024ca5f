"""Components by kind and name, collected from provider hooks, with duplicate detection."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from hudi_framework.errors import DuplicateComponentError, PluginConfigError, UnknownComponentError
from hudi_framework.plugin.manager import HudiPluginManager
from hudi_framework.plugin.spec import ComponentSpec


class ComponentKind(enum.Enum):
    """Kinds of components, each with its provider hook and a human label."""

    STORAGE = ("hudi_storage_backends", "storage backend")
    INDEX = ("hudi_indexes", "index")
    MERGER = ("hudi_record_mergers", "record merger")
    LOCK = ("hudi_lock_providers", "lock provider")
    SERVICE = ("hudi_table_services", "table service")
    KEYGEN = ("hudi_key_generators", "key generator")

    def __init__(self, hook: str, label: str) -> None:
        self.hook = hook
        self.label = label


@dataclass(frozen=True, slots=True)
class RegisteredComponent:
    """A spec plus who provided it."""

    spec: ComponentSpec[Any]
    provider: str


class ComponentRegistry:
    """All components the installed plugins provide, resolved by name (or alias)."""

    def __init__(self, by_kind: Mapping[ComponentKind, Mapping[str, RegisteredComponent]]) -> None:
        self._by_kind = {k: dict(v) for k, v in by_kind.items()}

    @classmethod
    def from_manager(cls, pm: HudiPluginManager) -> ComponentRegistry:
        """Call every provider hook implementation separately so duplicates name both plugins."""
        by_kind: dict[ComponentKind, dict[str, RegisteredComponent]] = {}
        for kind in ComponentKind:
            table: dict[str, RegisteredComponent] = {}
            caller = getattr(pm.hook, kind.hook)
            for impl in caller.get_hookimpls():
                provider = pm.describe(impl.plugin)
                specs = impl.function() or ()
                for spec in specs:
                    for name in (spec.name, *spec.aliases):
                        if name in table and table[name].spec is not spec:
                            raise DuplicateComponentError(kind.label, name, table[name].provider, provider)
                        table[name] = RegisteredComponent(spec, provider)
            by_kind[kind] = table
        return cls(by_kind)

    def names(self, kind: ComponentKind) -> list[str]:
        """Primary names (no aliases) of the installed components of ``kind``, sorted."""
        return sorted({c.spec.name for c in self._by_kind.get(kind, {}).values()})

    def specs(self, kind: ComponentKind) -> list[RegisteredComponent]:
        """One entry per installed component of ``kind``, sorted by name."""
        unique = {c.spec.name: c for c in self._by_kind.get(kind, {}).values()}
        return [unique[n] for n in sorted(unique)]

    def get(self, kind: ComponentKind, name: str) -> RegisteredComponent:
        """Look a component up by name or alias.

        Raises:
            UnknownComponentError: Listing the installed names of that kind.
        """
        try:
            return self._by_kind.get(kind, {})[name]
        except KeyError:
            raise UnknownComponentError(kind.label, name, self.names(kind)) from None

    def build(
        self,
        kind: ComponentKind,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        field_path: str = "",
    ) -> Any:
        """Validate ``options`` with the component's own model and build it.

        Raises:
            UnknownComponentError: No such component.
            PluginConfigError: The options fail the component's options model.
        """
        registered = self.get(kind, name)
        spec = registered.spec
        try:
            opts = spec.load_options_model().model_validate(dict(options or {}))
        except ValidationError as e:
            details = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in e.errors()
            )
            raise PluginConfigError(spec.name, field_path or f"{kind.name.lower()}.options", details) from e
        return spec.load_factory()(opts)
