"""Tests of hudi_framework.timeline."""
