"""Engine-neutral storage helpers shared by backends: key validation and safe joins."""
