"""Instant file names in timeline layouts 1 (v6, ``.hoodie/``) and 2 (v8+, ``.hoodie/timeline/``).

Requested and inflight files are ``<T>.<action>.<state>`` in both layouts, except that a commit's
inflight file is plain ``<T>.inflight``. Completed files are ``<T>.<action>`` in layout 1 and
``<T>_<C>.<action>`` in layout 2, where the action is the completed one (compaction completes as
``commit``, clustering as ``replacecommit``, log compaction as ``deltacommit``).

The parse regexes are Java's (``InstantGeneratorV1`` / ``InstantGeneratorV2``). Names that do not
match, or carry an unknown action or state, are not instant files and parse to ``None`` (Java
also lists only known extensions), so ``hoodie.properties``, ``._*`` AppleDouble files and
directories are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from hudi_framework.timeline.instant import Action, Instant, State

#: Timeline layout of table version 6 and earlier.
LAYOUT_V1: Final = 1
#: Timeline layout of table versions 8 and 9.
LAYOUT_V2: Final = 2

_V1_RE: Final = re.compile(r"^(\d+)(\.\w+)(\.\D+)?$")
_V2_RE: Final = re.compile(r"^(\d+(_\d+)?)(\.\w+)(\.\D+)?$")
_ACTIONS: Final = MappingProxyType({a.value: a for a in Action})
_STATES: Final = MappingProxyType({".requested": State.REQUESTED, ".inflight": State.INFLIGHT})
#: ``<T>.inflight`` is the commit's inflight file; the regex reads "inflight" as the action.
_BARE_INFLIGHT: Final = "inflight"


@dataclass(frozen=True, slots=True)
class ParsedName:
    """An instant file name, decoded.

    Attributes:
        instant: The instant the file represents (completion time set for layout-2 completed
            files whose name carries it).
        legacy_completed: A layout-2 completed file without ``_<C>`` (Java 1.x reads those as
            "legacy": completion time from the modification time).
    """

    instant: Instant
    legacy_completed: bool = False


def check_layout(layout_version: int) -> int:
    """Return ``layout_version`` if it is 1 or 2.

    Raises:
        ValueError: Any other value.
    """
    if layout_version not in (LAYOUT_V1, LAYOUT_V2):
        raise ValueError(f"unsupported timeline layout version {layout_version!r} (expected 1 or 2)")
    return layout_version


def parse_instant_file_name(name: str, layout_version: int) -> ParsedName | None:
    """Decode a timeline file name, or return None if it is not an instant file.

    Args:
        name: The file name (last path segment).
        layout_version: 1 or 2.
    """
    if not name[:1].isdigit():
        return None
    if check_layout(layout_version) == LAYOUT_V1:
        m = _V1_RE.match(name)
        if m is None:
            return None
        times, action_ext, state_ext = m.group(1), m.group(2), m.group(3)
    else:
        m = _V2_RE.match(name)
        if m is None:
            return None
        times, action_ext, state_ext = m.group(1), m.group(3), m.group(4)
    requested, _, completion = times.partition("_")
    action_name = action_ext[1:]
    if state_ext is None:
        if action_name == _BARE_INFLIGHT:
            return ParsedName(Instant(requested, Action.COMMIT, State.INFLIGHT))
        action = _ACTIONS.get(action_name)
        if action is None:
            return None
        done = Instant(requested, action, State.COMPLETED, completion or None)
        return ParsedName(done, legacy_completed=layout_version == LAYOUT_V2 and not completion)
    state = _STATES.get(state_ext)
    action = _ACTIONS.get(action_name)
    if state is None or action is None or completion:
        return None
    return ParsedName(Instant(requested, action, state))


def instant_file_name(instant: Instant, layout_version: int) -> str:
    """The file name of ``instant`` in its current state.

    Layout 1 has no clustering action: clustering is written with the replacecommit names there,
    as Java does for v6 tables.

    Raises:
        ValueError: A layout-2 completed instant without a completion time, or a bad layout.
    """
    layout = check_layout(layout_version)
    t = instant.requested_time
    action = instant.action
    if layout == LAYOUT_V1 and action is Action.CLUSTERING:
        action = Action.REPLACE_COMMIT
    if instant.state is State.REQUESTED:
        return f"{t}.{action}.requested"
    if instant.state is State.INFLIGHT:
        return f"{t}.inflight" if action is Action.COMMIT else f"{t}.{action}.inflight"
    done = action.completes_as
    if layout == LAYOUT_V1:
        return f"{t}.{done}"
    if not instant.completion_time:
        raise ValueError(f"a layout-2 completed instant needs a completion time: {instant}")
    return f"{t}_{instant.completion_time}.{done}"
