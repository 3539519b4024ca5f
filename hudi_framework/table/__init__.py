"""Tables: ``hoodie.properties``, the typed table config, the table's key generator, and the ``HudiTable`` facade.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
