"""Tables: ``hoodie.properties``, the typed table config, and the ``HudiTable`` facade."""
