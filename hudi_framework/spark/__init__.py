"""The Spark adapter: the only package that imports ``pyspark``.

:func:`hudi_errors` turns the Spark exception of a failed ``format("hudi")`` read or write back into
the project's own error class::

    from hudi_framework.errors import SchemaMismatchError
    from hudi_framework.spark import hudi_errors

    try:
        with hudi_errors():
            df.write.format("hudi").options(**opts).mode("append").save(path)
    except SchemaMismatchError as e:
        ...
"""

from hudi_framework.spark.task_errors import hudi_errors, recover_error

__all__ = ["hudi_errors", "recover_error"]
