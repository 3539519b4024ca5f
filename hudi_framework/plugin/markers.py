"""Pluggy markers of the ``hudi_framework`` project."""

from __future__ import annotations

from typing import Final

import pluggy

#: The pluggy project name and the entry-point group plugins register under.
PROJECT: Final = "hudi_framework"

hookspec: Final = pluggy.HookspecMarker(PROJECT)
hookimpl: Final = pluggy.HookimplMarker(PROJECT)
