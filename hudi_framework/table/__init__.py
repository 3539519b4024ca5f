"""Tables: ``hoodie.properties``, the typed table config, the table's key generator, and the ``HudiTable`` facade."""
