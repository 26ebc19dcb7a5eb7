"""What a tool wraps: plain and nested functions, methods, partials and callable objects.

This module owns :func:`inspect_target`, which looks at whatever was given to ``@tool`` and
says how to treat it: which object is called, whether it binds like a method when it sits on a
class, which function's annotations, globals and docstring describe it, which parameters a
``functools.partial`` has already fixed (hidden from the model), and the default tool name.
Reading the signature itself is left to :mod:`aiwrapper._tools.schema`.
"""

from __future__ import annotations

import dis
import functools
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Target", "inspect_target", "is_async_callable", "never_suspends"]

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


@dataclass(frozen=True, slots=True)
class Target:
    """How one callable becomes a tool.

    Attributes:
        call: What is called with the model's arguments.
        binding: ``"method"`` or ``"class"`` for a tool declared on a class (bound when it is
            looked up on an instance or the class), else ``None``.
        source: The function whose annotations, globals and docstring describe ``call``.
        docs: The docstrings that describe it, best first (``__call__`` before its class).
        hidden: Parameters a ``functools.partial`` fixed; the model never sees them.
        name: The default tool name.
    """

    call: Callable[..., Any]
    binding: str | None
    source: Any
    docs: tuple[str | None, ...]
    hidden: frozenset[str]
    name: str


def inspect_target(func: Any) -> Target:
    """Classify a callable given to ``@tool``.

    Args:
        func: A function (sync or async), a method, a classmethod or staticmethod object, a
            ``functools.partial``, or an object with ``__call__``.

    Returns:
        The target; ``call`` is not callable when ``func`` was not.
    """
    if isinstance(func, staticmethod):
        return _plain(func.__func__, None)
    if isinstance(func, classmethod):
        return _plain(func.__func__, "class")
    if isinstance(func, functools.partial):
        inner = inspect_target(func.func)
        hidden = inner.hidden | frozenset(func.keywords)
        return Target(func, None, inner.source, inner.docs, hidden, inner.name)
    if inspect.isfunction(func) or inspect.ismethod(func) or not callable(func):
        return _plain(func, "method" if _looks_like_method(func) else None)
    cls = func if isinstance(func, type) else type(func)
    method = cls.__init__ if func is cls else cls.__call__  # a class is described by __init__
    docs = (getattr(method, "__doc__", None), _class_doc(cls))
    return Target(func, None, method, docs, frozenset(), cls.__name__)


def is_async_callable(func: Any) -> bool:
    """Tell whether calling ``func`` returns a coroutine (partials and ``__call__`` included)."""
    while isinstance(func, functools.partial):
        func = func.func
    target = getattr(func, "__func__", func)
    if inspect.iscoroutinefunction(target):
        return True
    if inspect.isfunction(func) or inspect.ismethod(func):
        return False
    call = inspect.getattr_static(type(func), "__call__", None)  # an async __call__ method
    return inspect.iscoroutinefunction(call)


# Every ``await``, ``async for`` and ``async with`` compiles to one of these (3.10 yields from
# the awaitable; 3.11 and later send to it); a coroutine can give way to its event loop nowhere
# else.
_SUSPENDING = frozenset(
    {
        *("GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "BEFORE_ASYNC_WITH", "END_ASYNC_FOR"),
        *("SEND", "YIELD_VALUE", "YIELD_FROM"),
    }
)


def never_suspends(func: Any) -> bool:
    """Tell whether a call of ``func`` finishes at its first step, never giving way to the
    event loop: an ``async def`` (or a bound method of one) whose own body holds no
    ``await``, ``async for`` or ``async with``.

    False whenever it cannot be told from the code: a partial, a callable object, a sync
    function marked as a coroutine function, a wrapper that awaits what it wraps.
    """
    target = getattr(func, "__func__", func)
    if not isinstance(target, types.FunctionType):
        return False
    code = target.__code__
    if not code.co_flags & inspect.CO_COROUTINE:
        return False
    return not any(op.opname in _SUSPENDING for op in dis.get_instructions(code))


def _plain(func: Any, binding: str | None) -> Target:
    name = getattr(func, "__name__", "")
    docs = (getattr(func, "__doc__", None),)
    return Target(func, binding, func, docs, frozenset(), name if isinstance(name, str) else "")


def _class_doc(cls: type) -> str | None:
    """The class's own docstring, not one inherited or generated (``Point(x, y)``)."""
    doc = cls.__dict__.get("__doc__")
    return None if not isinstance(doc, str) or doc.startswith(f"{cls.__name__}(") else doc


def _looks_like_method(func: Any) -> bool:
    """A function defined in a class body whose first parameter is ``self`` or ``cls``."""
    if not isinstance(func, types.FunctionType):
        return False
    parts = func.__qualname__.split(".")
    if len(parts) < 2 or parts[-2] == "<locals>":
        return False
    try:  # the signature follows __wrapped__, so a decorated method is seen through
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0].name in ("self", "cls") and params[0].kind in _POSITIONAL
