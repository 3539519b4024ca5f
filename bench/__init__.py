"""Benchmarks: hudi_framework against the tools users would pick instead, on the same data, in one run.

``python -m bench run`` (500,000 rows; ``--sizes 500000,2000000,8000000`` for the growth plot,
``--quick`` for a smoke run). Each step runs in its own subprocess (so peak RSS is the step's own),
in a fresh copy of its prepared state, at least three times; the report takes medians. See
docs/benchmarks.md for the latest figures and the method.
"""
