"""Engine-neutral storage helpers: key validation and safe joins (shared by backends), and reads of
data files whose content errors name the file.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""
