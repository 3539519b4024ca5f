"""Contracts (ABCs) that plugins implement. No implementations live here.

Public: every submodule (``hudi_framework.contracts.storage``, ``.merger``, ...) is part of the
stable API (docs/api.md); import the contracts from them.
"""

__all__: list[str] = []  # the contracts are the submodules' names
