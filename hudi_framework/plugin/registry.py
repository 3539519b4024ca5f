"""Components by kind and name, collected from provider hooks, with duplicate detection.

Each :class:`ComponentKind` carries its contract type, so :meth:`ComponentRegistry.build` returns
that type (``build(ComponentKind.STORAGE, ...)`` is a ``StorageProvider``) and checks the built
object against it: callers need no casts or ``isinstance`` checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import ValidationError

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.service import TableService
from hudi_framework.contracts.source import Source
from hudi_framework.contracts.storage import StorageProvider
from hudi_framework.contracts.transformer import Transformer
from hudi_framework.errors import (
    DuplicateComponentError,
    PluginConfigError,
    PluginError,
    UnknownComponentError,
)
from hudi_framework.plugin.manager import HudiPluginManager
from hudi_framework.plugin.spec import ComponentSpec

__all__ = ["ComponentKind", "ComponentRegistry", "RegisteredComponent"]

T = TypeVar("T")


@dataclass(frozen=True, eq=False, slots=True)
class ComponentKind(Generic[T]):
    """A kind of component: its provider hook, a human label and the contract its components implement.

    The kinds are the class attributes (``ComponentKind.STORAGE`` ...); :meth:`all` lists them and
    :meth:`named` finds one by name.

    Attributes:
        name: The kind's name (``STORAGE``).
        hook: The provider hook that lists components of this kind.
        label: A human label for messages (``storage backend``).
        contract: The class every built component of this kind is an instance of. Typed loosely on
            purpose: the contracts are abstract classes, which a ``type[T]`` field would refuse.
    """

    name: str
    hook: str
    label: str
    contract: type

    STORAGE: ClassVar[ComponentKind[StorageProvider]]
    INDEX: ClassVar[ComponentKind[RecordIndex]]
    MERGER: ClassVar[ComponentKind[RecordMerger]]
    LOCK: ClassVar[ComponentKind[LockProviderFactory]]
    SERVICE: ClassVar[ComponentKind[TableService]]
    KEYGEN: ClassVar[ComponentKind[KeyGenerator]]
    SOURCE: ClassVar[ComponentKind[Source]]
    TRANSFORMER: ClassVar[ComponentKind[Transformer]]

    @classmethod
    def all(cls) -> tuple[ComponentKind[Any], ...]:
        """Every kind, in declaration order."""
        return (cls.STORAGE, cls.INDEX, cls.MERGER, cls.LOCK, cls.SERVICE, cls.KEYGEN, cls.SOURCE, cls.TRANSFORMER)

    @classmethod
    def named(cls, name: str) -> ComponentKind[Any]:
        """The kind called ``name`` (``"STORAGE"``; case-insensitive).

        Raises:
            KeyError: No kind has that name.
        """
        for kind in cls.all():
            if kind.name == name.upper():
                return kind
        raise KeyError(name)

    def __repr__(self) -> str:
        return f"ComponentKind.{self.name}"


ComponentKind.STORAGE = ComponentKind("STORAGE", "hudi_storage_backends", "storage backend", StorageProvider)
ComponentKind.INDEX = ComponentKind("INDEX", "hudi_indexes", "index", RecordIndex)
ComponentKind.MERGER = ComponentKind("MERGER", "hudi_record_mergers", "record merger", RecordMerger)
ComponentKind.LOCK = ComponentKind("LOCK", "hudi_lock_providers", "lock provider", LockProviderFactory)
ComponentKind.SERVICE = ComponentKind("SERVICE", "hudi_table_services", "table service", TableService)
ComponentKind.KEYGEN = ComponentKind("KEYGEN", "hudi_key_generators", "key generator", KeyGenerator)
ComponentKind.SOURCE = ComponentKind("SOURCE", "hudi_sources", "source", Source)
ComponentKind.TRANSFORMER = ComponentKind("TRANSFORMER", "hudi_transformers", "transformer", Transformer)


@dataclass(frozen=True, slots=True)
class RegisteredComponent(Generic[T]):
    """A spec plus who provided it."""

    spec: ComponentSpec[T]
    provider: str


class ComponentRegistry:
    """All components the installed plugins provide, resolved by name (or alias)."""

    def __init__(self, by_kind: Mapping[ComponentKind[Any], Mapping[str, RegisteredComponent[Any]]]) -> None:
        self._by_kind = {k: dict(v) for k, v in by_kind.items()}

    @classmethod
    def from_manager(cls, pm: HudiPluginManager) -> ComponentRegistry:
        """Call every provider hook implementation separately so duplicates name both plugins."""
        by_kind: dict[ComponentKind[Any], dict[str, RegisteredComponent[Any]]] = {}
        for kind in ComponentKind.all():
            table: dict[str, RegisteredComponent[Any]] = {}
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

    def names(self, kind: ComponentKind[Any]) -> list[str]:
        """Primary names (no aliases) of the installed components of ``kind``, sorted."""
        return sorted({c.spec.name for c in self._by_kind.get(kind, {}).values()})

    def specs(self, kind: ComponentKind[T]) -> list[RegisteredComponent[T]]:
        """One entry per installed component of ``kind``, sorted by name."""
        unique = {c.spec.name: c for c in self._by_kind.get(kind, {}).values()}
        return [unique[n] for n in sorted(unique)]

    def get(self, kind: ComponentKind[T], name: str) -> RegisteredComponent[T]:
        """Look a component up by name or alias.

        Raises:
            UnknownComponentError: Listing the installed names of that kind.
        """
        try:
            found: RegisteredComponent[T] = self._by_kind.get(kind, {})[name]
        except KeyError:
            raise UnknownComponentError(kind.label, name, self.names(kind)) from None
        return found

    def build(
        self,
        kind: ComponentKind[T],
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        field_path: str = "",
    ) -> T:
        """Validate ``options`` with the component's own model and build it.

        Raises:
            UnknownComponentError: No such component.
            PluginConfigError: The options fail the component's options model.
            PluginError: The component built is not an instance of the kind's contract.
        """
        spec = self.get(kind, name).spec
        try:
            opts = spec.load_options_model().model_validate(dict(options or {}))
        except ValidationError as e:
            details = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in e.errors()
            )
            raise PluginConfigError(spec.name, field_path or f"{kind.name.lower()}.options", details) from e
        built = spec.load_factory()(opts)
        _check_contract(kind, name, built)
        return built


def _check_contract(kind: ComponentKind[Any], name: str, built: object) -> None:
    # A plugin's factory is typed for the checker only; what it returns is checked here, once for all kinds.
    if not isinstance(built, kind.contract):
        raise PluginError(
            f"{kind.label} component {name!r} built a {type(built).__name__}, not a {kind.contract.__name__}"
        )
