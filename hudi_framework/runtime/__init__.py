"""What a session builds from its settings: the plugins' components as their contract types
(:class:`~hudi_framework.runtime.components.Components`) and open tables
(:class:`~hudi_framework.runtime.table.HudiTable`).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
