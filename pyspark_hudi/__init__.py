"""Auto-registers ``format("hudi")``: PySpark imports every top-level ``pyspark_*`` module."""

from hudi_framework.spark.datasource import HudiDataSource as DefaultSource

__all__ = ["DefaultSource"]
