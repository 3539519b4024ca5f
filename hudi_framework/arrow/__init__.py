"""Arrow building blocks below every other kernel package: numpy vectors to Arrow arrays and back.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
