"""The plugins' commit hooks (``hudi_pre_commit``, ``hudi_commit_completed``) for one table.

Each implementation is called on its own so that a veto or a failure names the plugin that raised
it, and so that one observer failing (a catalog sync) does not keep the next (metrics) from running.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from hudi_framework.errors import CommitVetoedError
from hudi_framework.plugin.manager import HudiPluginManager

__all__ = ["PluginCommitHooks"]


class PluginCommitHooks:
    """The commit hooks the plugins of ``manager`` implement, for the table at ``base_path``."""

    def __init__(self, manager: HudiPluginManager, base_path: str) -> None:
        self._pm = manager
        self._base_path = base_path

    @property
    def active(self) -> bool:
        """Whether any plugin implements a commit hook."""
        hook = self._pm.hook
        return bool(hook.hudi_pre_commit.get_hookimpls() or hook.hudi_commit_completed.get_hookimpls())

    def pre_commit(self, instant: str, action: str, metadata: Mapping[str, object]) -> None:
        """Call every ``hudi_pre_commit``; the first veto stops the commit.

        Raises:
            CommitVetoedError: A plugin raised it, or raised anything else (a check that cannot
                run does not pass: the error is the veto's cause).
        """
        args = {"base_path": self._base_path, "instant": instant, "action": action, "metadata": _frozen(metadata)}
        # pluggy's call order: the last registered implementation first.
        for impl in reversed(self._pm.hook.hudi_pre_commit.get_hookimpls()):
            try:
                impl.function(**{name: args[name] for name in impl.argnames})
            except CommitVetoedError:
                raise
            except Exception as e:
                raise CommitVetoedError(self._pm.describe(impl.plugin), f"hudi_pre_commit failed: {e!r}") from e

    def commit_completed(
        self, instant: str, action: str, completion_time: str, metadata: Mapping[str, object]
    ) -> list[tuple[str, Exception]]:
        """Call every ``hudi_commit_completed``; failures are returned, never raised."""
        args = {
            "base_path": self._base_path,
            "instant": instant,
            "action": action,
            "completion_time": completion_time,
            "metadata": _frozen(metadata),
        }
        failures: list[tuple[str, Exception]] = []
        for impl in reversed(self._pm.hook.hudi_commit_completed.get_hookimpls()):
            try:
                impl.function(**{name: args[name] for name in impl.argnames})
            except Exception as e:
                failures.append((f"hudi_commit_completed of {self._pm.describe(impl.plugin)}", e))
        return failures


def _frozen(metadata: Mapping[str, object]) -> Mapping[str, object]:
    return MappingProxyType(dict(metadata))
