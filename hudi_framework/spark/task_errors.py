"""Typed errors across the executor/driver boundary.

A :class:`~hudi_framework.errors.HudiError` raised inside a Spark task reaches the driver as a
``PythonException`` (or a ``Py4JJavaError``) whose message holds the worker's traceback text, not
the exception object. Executor functions therefore run under :func:`carrying_errors`, which
re-raises a ``HudiError`` as :class:`CarriedTaskError` whose message ends with a marker holding the
error's class and attributes (base64 JSON). On the driver, :func:`typed_task_errors` finds the last
marker in the Spark exception and raises an equal error of the original class, chained to the
Spark exception (``raise ... from``), so callers catch ``SchemaMismatchError`` from either engine.

Only classes that derive from ``HudiError`` and whose module the driver has already imported are
rebuilt; anything else propagates unchanged.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, Final, ParamSpec, TypeVar

from hudi_framework.errors import CommitStateUnknownError, HudiError

__all__ = [
    "CarriedTaskError",
    "carrying_errors",
    "hudi_errors",
    "recover_error",
    "reported_to_spark",
    "reported_write",
    "typed_task_errors",
]

_MARKER: Final = "HUDI_FW_TASK_ERROR"
_PATTERN: Final = re.compile(_MARKER + r"\[([A-Za-z0-9+/=]+)\]")

P = ParamSpec("P")
Out = TypeVar("Out")


_TUPLE: Final = "__tuple__"


def _encode(value: Any) -> Any:
    """``value`` as JSON, tuples tagged so that they come back as tuples (``TypeError`` if not JSON)."""
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(type(value).__name__)


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {_TUPLE}:
            return tuple(_decode(v) for v in value[_TUPLE])
        return {k: _decode(v) for k, v in value.items()}
    return value


def _marker(error: HudiError) -> str:
    """``error``'s class, ``args`` and plain-data attributes, as the marker :func:`recover_error` reads."""
    attrs = {}
    for name, value in vars(error).items():
        try:
            attrs[name] = _encode(value)
        except TypeError:
            continue
    try:
        args = _encode(tuple(error.args))
    except TypeError:
        args = _encode((str(error),))
    payload = {"module": type(error).__module__, "name": type(error).__qualname__, "args": args, "attrs": attrs}
    return f"{_MARKER}[{base64.b64encode(json.dumps(payload).encode()).decode()}]"


class CarriedTaskError(Exception):
    """Raised in a Spark task in place of a ``HudiError``; its message carries that error."""

    @classmethod
    def carrying(cls, error: HudiError) -> CarriedTaskError:
        """Wrap ``error``: its class, ``args`` and the attributes that are plain data."""
        return cls(f"{type(error).__name__}: {error} {_marker(error)}")


#: Appended to a write's error when nothing of the write was committed.
TABLE_UNCHANGED: Final = "; nothing was committed: the table is unchanged"


@contextmanager
def reported_to_spark(*, write: bool = False) -> Iterator[None]:
    """Around a data source method Spark calls: a ``HudiError`` leaves it as itself, its message
    ending with what happened to the table (for a write) and, on a line of its own, the marker
    :func:`hudi_errors` rebuilds it from on the caller's side.

    Spark puts the error's last traceback line (``hudi_framework.errors.KeyFieldError: ...``) in its
    own exception's message; with ``spark.sql.execution.pyspark.udf.hideTraceback.enabled`` it is the
    first line the user sees.

    Args:
        write: A write that raises here committed nothing (a commit that did finishes without raising;
            a commit whose outcome is unknown says so itself).
    """
    try:
        yield
    except HudiError as e:
        if len(e.args) == 1 and isinstance(e.args[0], str) and _MARKER not in e.args[0]:
            note = TABLE_UNCHANGED if write and not isinstance(e, CommitStateUnknownError) else ""
            marker = _marker(e)
            e.args = (f"{e.args[0]}{note}\n{marker}",)
        raise


def carrying_errors(func: Callable[P, Iterator[Out]]) -> Callable[P, Iterator[Out]]:
    """Decorate an executor function (e.g. for ``mapInArrow``) so its ``HudiError``s reach the driver typed."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Iterator[Out]:
        try:
            yield from func(*args, **kwargs)
        except HudiError as e:
            raise CarriedTaskError.carrying(e) from e

    return wrapper


def reported_write(func: Callable[P, Out]) -> Callable[P, Out]:
    """Decorate a data source writer's ``write`` or ``commit``: :func:`reported_to_spark` for a write."""

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> Out:
        with reported_to_spark(write=True):
            return func(*args, **kwargs)

    return wrapper


def _resolve(module: str, name: str) -> type[HudiError] | None:
    loaded = sys.modules.get(module)
    target: Any = loaded
    for part in name.split("."):
        target = getattr(target, part, None)
    if isinstance(target, type) and issubclass(target, HudiError):
        return target
    return None


def recover_error(error: BaseException) -> HudiError | None:
    """The ``HudiError`` a Spark exception carries (the innermost marker in its text), or None."""
    texts = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        texts.append(str(current))
        current = current.__cause__ or current.__context__
    for text in texts:
        matches = _PATTERN.findall(text)
        if not matches:
            continue
        try:
            payload = json.loads(base64.b64decode(matches[-1]))
        except (binascii.Error, ValueError):
            continue
        cls = _resolve(str(payload.get("module")), str(payload.get("name")))
        if cls is None:
            return None
        rebuilt = cls.__new__(cls)
        rebuilt.args = tuple(_decode(payload.get("args")) or ())
        rebuilt.__dict__.update(_decode(payload.get("attrs")) or {})
        return rebuilt
    return None


@contextmanager
def typed_task_errors() -> Iterator[None]:
    """Around Spark actions on the driver: re-raise a carried ``HudiError`` as its own class.

    Public as :func:`hudi_errors`: ``with hudi_errors(): df.write.format("hudi")...save(path)``
    raises ``KeyFieldError``, ``SchemaMismatchError``... instead of Spark's ``AnalysisException``
    (which stays chained as the cause).
    """
    try:
        yield
    except HudiError:
        raise
    except Exception as e:
        typed = recover_error(e)
        if typed is None:
            raise
        raise typed from e


#: The public name of :func:`typed_task_errors`.
hudi_errors = typed_task_errors
