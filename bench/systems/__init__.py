"""One module per system measured; each exposes ``STEPS``: step name -> :class:`~bench.step.Step`."""
