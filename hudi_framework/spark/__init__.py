"""The Spark adapter: the only package that imports ``pyspark``."""
