"""Contracts between the kernel and plugins: what plugins implement, and what the kernel hands them.

Each contract module defines one kind of component as an ABC (storage, index, merger, lock, key
generator, table service). Next to them sit the protocols the kernel implements and hands to
plugins (the table service host) and the toolkits a plugin of a kind needs, used by the kernel
itself: storage keys and publishing output streams, data-file reads, leases, the index toolkit
(:mod:`hudi_framework.contracts.indexing`), the merge toolkit (:mod:`hudi_framework.contracts.merging`),
partition path encoding. Contracts import only errors, the vocabulary and other contracts, never a
kernel package.

Public: every submodule is part of the stable API (docs/api.md); import the contracts from them.
"""

__all__: list[str] = []  # the contracts are the submodules' names
