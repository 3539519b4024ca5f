"""Storage plugin: local (work in progress)."""
