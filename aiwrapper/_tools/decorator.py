"""``@tool`` and :class:`Tool`: a function (or a dict definition) the model can call.

This module owns the ``Tool`` object: its public attributes, the per-dialect declaration cache,
validation of a model's arguments and invocation (async functions awaited, sync ones run in a
worker thread through anyio so they never block the event loop), plus the descriptor that
binds a tool declared on a method. Reading signatures is left to
:mod:`aiwrapper._tools.schema`, dict definitions to :mod:`aiwrapper._tools.definitions`.
"""

from __future__ import annotations

import copy
import functools
import inspect
import marshal
import re
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, overload

import anyio.to_thread
from typing_extensions import ParamSpec, Self, TypeVar

from .._errors import ToolDefinitionError
from .._wire._jsontext import Declaration
from ._arguments import validate_arguments
from .callables import inspect_target, is_async_callable, never_suspends
from .context import Context
from .dialects import DialectError, dialect_names, render
from .exact import wants_exact
from .flags import check_flags
from .nodes import Node, Schema
from .schema import read_signature
from .validate import Coercion

__all__ = ["Tool", "make_tool", "read_only_schema", "tool"]

# Defaults keep a bare ``Tool`` (a dict definition, an MCP tool) meaning ``Tool[..., Any]``.
P = ParamSpec("P", default=...)
R = TypeVar("R", default=Any)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")


class Tool(Generic[P, R]):
    """A function the model can call, with its schema, validation and invocation.

    ``Tool[P, R]`` keeps the decorated function's parameters and return type, so calling a
    tool directly is checked as calling the function.

    Attributes:
        name: The name the model calls (letters, digits, ``_`` and ``-``; at most 64).
        description: What the tool does, from the docstring unless given.
        parameters: The canonical JSON Schema of the arguments (do not mutate).
        strict: Strict mode, where a dialect has one: ``None`` strict when lossless, ``True``
            always, ``False`` never.
        timeout: Seconds one call may take (overrides the run's ``tool_timeout``).
        sequential: Never run alongside other calls.
        requires_approval: Ask the ``approve`` callback before each call.
        func: The implementation, ``None`` for a dict definition.
        last_coercions: The safe coercions the latest :meth:`validate` applied, as
            ``{"path", "from", "to"}`` records (for debugging; shared by concurrent calls).
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        parameters: Schema,
        validator: Node,
        func: Callable[P, R] | None = None,
        strict: bool | None = None,
        timeout: float | None = None,
        sequential: bool = False,
        requires_approval: bool = False,
        context_param: str | None = None,
    ) -> None:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ToolDefinitionError(
                f"tool name {name!r} is not portable: use 1-64 letters, digits, '_' or '-', "
                "starting with a letter or '_' (pass name=...)"
            )
        check_flags(
            name,
            timeout=timeout,
            strict=strict,
            sequential=sequential,
            requires_approval=requires_approval,
        )
        self.name = name
        self.description = description
        self.parameters = parameters
        self.strict = strict
        self.timeout = timeout
        self.sequential = sequential
        self.requires_approval = requires_approval
        self.func = func
        self.last_coercions: list[Coercion] = []
        self._validator = validator
        self._exact = wants_exact(parameters)  # a Decimal: numbers are read from their digits
        self._context_param = context_param
        self._binding: str | None = None
        self._cache: dict[str, bytes | Schema] = {}
        self._shared: dict[str, Schema] = {}  # what read_only_schema hands out, per dialect
        # Asked once: a bound method of an async function stays async, so __get__ keeps it.
        self._is_async = func is not None and is_async_callable(func)
        self._at_once: bool | None = None  # whether calls never suspend: read at the first call
        if func is not None:  # not updated=__dict__: the function's attributes are not ours
            functools.update_wrapper(self, func, updated=())
        if strict is True:  # fail now, at decoration time, where a dialect cannot be strict
            for dialect in dialect_names():
                self.schema_for(dialect)

    @property
    def has_implementation(self) -> bool:
        """Whether calls run a Python function (dict definitions go to a function_handler)."""
        return self.func is not None

    @property
    def finishes_at_once(self) -> bool:
        """Whether a call runs start to end without giving way to the event loop: an async
        function whose body never awaits (the loop runs such calls without a task each)."""
        at_once = self._at_once
        if at_once is None:
            at_once = self._at_once = self._is_async and never_suspends(self.func)
        return at_once

    @property
    def context_param(self) -> str | None:
        """The parameter that receives the :class:`Context`, if the function declares one."""
        return self._context_param

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the original function unchanged."""
        if self.func is None:
            raise TypeError(f"tool {self.name!r} is a definition without an implementation")
        return self.func(*args, **kwargs)

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> Tool[..., R]: ...

    def __get__(self, instance: object, owner: type | None = None) -> Tool[..., R]:
        """Bind a tool declared on a method to the instance (or class for a classmethod)."""
        if self._binding is None or self.func is None:
            return self
        target = owner if self._binding == "class" else instance
        if target is None:
            return self
        bound = copy.copy(self)
        bound.func = types.MethodType(self.func, target)
        bound._binding = None
        return bound

    def schema_for(self, dialect: str) -> Schema:
        """Return the tool's declaration in a provider's dialect.

        Args:
            dialect: One of :data:`aiwrapper._tools.DIALECTS`: a provider's name, or its name
                and a variant after a dash.

        Returns:
            The declaration, ready to send: rendered once, then a fresh deep copy on every call,
            so a caller that edits it changes neither the cache nor :attr:`parameters`.

        Raises:
            ValueError: An unknown dialect, listing the valid ones.
            ToolDefinitionError: A schema the dialect cannot express (a strict dialect and a
                schema that cannot be strict).
        """
        frozen = self._cache.get(dialect)
        if frozen is None:
            frozen = self._cache[dialect] = _freeze(self._render(dialect))
        return _thaw(frozen)

    def _render(self, dialect: str) -> Schema:
        try:
            return render(
                dialect,
                name=self.name,
                description=self.description,
                parameters=self.parameters,
                strict=self.strict,
            )
        except DialectError as exc:
            raise ToolDefinitionError(f"tool {self.name!r}: {exc}") from exc

    def validate(self, arguments: Mapping[str, Any] | str) -> dict[str, Any]:
        """Check a model's arguments and build the keyword arguments to call with.

        Only the safe coercions are applied (recorded in :attr:`last_coercions`); missing
        optional parameters are left out so the function's own defaults apply.

        Args:
            arguments: A mapping, or the JSON text the model produced.

        Returns:
            Keyword arguments with the declared Python types built (plain JSON values for a
            dict definition).

        Raises:
            ToolArgumentsError: Naming every bad field by JSON pointer.
        """
        kwargs, coercions = validate_arguments(
            self._validator, arguments, tool_name=self.name, exact=self._exact
        )
        self.last_coercions = coercions
        return kwargs

    async def invoke(
        self, arguments: Mapping[str, Any] | str, *, context: Context[Any] | None = None
    ) -> Any:
        """Validate the arguments, then call the function and return its raw result.

        Async functions are awaited; sync functions run in a worker thread. A function that
        declares a ``Context`` parameter receives ``context``, or ``Context(deps=None)`` when
        none is given. The function's exceptions propagate unchanged.

        Args:
            arguments: A mapping, or the JSON text the model produced.
            context: What the run hands to the tool.

        Returns:
            The function's return value (serialize it with ``serialize_result``).

        Raises:
            ToolArgumentsError: Arguments that do not fit the schema.
            ToolDefinitionError: A dict definition, which has no function to call.
        """
        return await self.call_validated(self.validate(arguments), context=context)

    async def call_validated(
        self, kwargs: dict[str, Any], *, context: Context[Any] | None = None
    ) -> Any:
        """Call the function with keyword arguments that ``validate`` already returned.

        The loop validates once (it must know the outcome before asking for approval) and
        then calls through here, so arguments are not checked twice.

        Raises:
            ToolDefinitionError: A dict definition, which has no function to call.
        """
        func: Callable[..., Any] | None = self.func  # called with checked keywords, not P
        if func is None:
            raise ToolDefinitionError(
                f"tool {self.name!r} has no implementation; its calls go to function_handler"
            )
        if self._context_param is not None:  # a copy: the caller's kwargs stay as they were
            given = context if context is not None else Context(deps=None)
            kwargs = {**kwargs, self._context_param: given}
        if self._is_async:
            return await func(**kwargs)
        # A thread cannot be interrupted: on a timeout or cancellation the run moves on and
        # the function finishes in the background, its result discarded.
        call = functools.partial(func, **kwargs)
        result = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        return await result if inspect.isawaitable(result) else result


def read_only_schema(tool: Tool[..., Any], dialect: str) -> Schema:
    """``tool.schema_for(dialect)`` without its copy: the same object at every call.

    For an encoder that only serializes the declaration into a request body, which then goes
    out and is dropped: the deep copy ``schema_for`` makes for callers that edit it would be
    paid for every tool on every request. Nobody may edit what this returns: it is a
    ``Declaration``, whose JSON is written once for every request body that carries it.
    """
    # A stand-in with only schema_for (a test double) gets its copy.
    cache: dict[str, Schema] | None = getattr(tool, "_shared", None)
    if cache is None:
        return tool.schema_for(dialect)
    shared = cache.get(dialect)
    if shared is None:
        shared = cache[dialect] = Declaration(tool.schema_for(dialect))
    return shared


def _freeze(schema: Schema) -> bytes | Schema:
    """Keep a rendered declaration as marshal bytes: loading them is the cheapest deep copy
    of JSON data (about 4 us for a typical tool, see benchmarks/bench_tools.py)."""
    try:
        return marshal.dumps(schema)
    except ValueError:  # a value marshal cannot write (a dict definition's own objects)
        return schema


def _thaw(frozen: bytes | Schema) -> Schema:
    if isinstance(frozen, bytes):
        fresh: Schema = marshal.loads(frozen)
        return fresh
    return copy.deepcopy(frozen)


@dataclass(frozen=True, slots=True)
class _Options:
    name: str | None = None
    description: str | None = None
    strict: bool | None = None
    timeout: float | None = None
    sequential: bool = False
    requires_approval: bool = False


@overload
def tool(func: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
) -> Callable[[Callable[P, R]], Tool[P, R]]: ...


def tool(
    func: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    strict: bool | None = None,
    timeout: float | None = None,
    sequential: bool = False,
    requires_approval: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a :class:`Tool`; usable bare (``@tool``) or with options.

    Args:
        func: The function (sync or async, plain, nested, method, classmethod, staticmethod).
        name: The tool's name (default: the function's name).
        description: The tool's description (default: the docstring without its sections).
        strict: Strict mode, where a dialect has one: ``None`` when lossless, ``True`` always
            (a signature that cannot be strict fails here), ``False`` never.
        timeout: Seconds one call may take.
        sequential: Never run this tool alongside other calls.
        requires_approval: Ask the ``approve`` callback before each call.

    Returns:
        The tool, or a decorator making one.

    Raises:
        ToolDefinitionError: A signature that cannot be described, naming the parameter.
    """
    options = _Options(name, description, strict, timeout, sequential, requires_approval)
    if func is not None:
        return make_tool(func, options, sys._getframe(1))

    def decorate(target: Callable[..., Any]) -> Tool:
        return make_tool(target, options, sys._getframe(1))

    return decorate


def make_tool(func: Any, options: Any = None, frame: types.FrameType | None = None) -> Tool:
    """Build a tool from a callable (the work behind :func:`tool`).

    Args:
        func: The callable; a ``Tool`` is returned as it is when no options are given.
        options: ``_Options`` from :func:`tool` (defaults when ``None``).
        frame: The decorating frame, whose locals resolve names of nested definitions.

    Returns:
        The tool.
    """
    if isinstance(func, Tool) and (options is None or func.func is None):
        return func
    options = options if options is not None else _Options()
    if isinstance(func, Tool):
        func = func.func
    target = inspect_target(func)
    if not callable(target.call):
        raise ToolDefinitionError(f"cannot make a tool from {func!r}: it is not callable")
    frame_locals = (lambda: dict(frame.f_locals)) if frame is not None else None
    signature = read_signature(target, frame_locals=frame_locals)
    made = Tool(
        name=options.name or target.name,
        description=options.description
        if options.description is not None
        else signature.description,
        parameters=signature.parameters,
        validator=signature.root,
        func=target.call,
        strict=options.strict,
        timeout=options.timeout,
        sequential=options.sequential,
        requires_approval=options.requires_approval,
        context_param=signature.context_param,
    )
    made._binding = target.binding
    return made
