"""``LangOptions``: every knob of a run, and how layers of options merge.

Options come from three layers, merged field by field in this order: the ``Lang``'s defaults,
the per-call options (a ``LangOptions`` or a plain dict), then keyword overrides. A field left
``None`` does not override. ``merge_options`` returns one ``LangOptions`` with every unset field
filled from ``DEFAULTS``; an unknown key is a ``TypeError`` naming the closest valid one, and a
value no provider accepts (a negative timeout, a malformed ``function_call``, an unknown
``thinking`` level) a ``ConfigError`` naming the option, before any request.
"""

from __future__ import annotations

import difflib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, Union

from ._modelrules import DYNAMIC_THINKING, THINKING_BUDGETS
from ._sizelimits import SizeLimits

if TYPE_CHECKING:
    from ._result import FunctionCall, LangResult
    from ._runevents import RunEvent

__all__ = ["DEFAULTS", "LangOptions", "OptionsLike", "merge_options"]

ResultCallback = Callable[["LangResult"], Union[None, Awaitable[None]]]
EventCallback = Callable[["RunEvent"], Union[None, Awaitable[None]]]
FunctionHandler = Callable[["FunctionCall"], Any]
ApproveCallback = Callable[["FunctionCall"], Union[bool, str, Awaitable[Union[bool, str]]]]
FunctionCallChoice = Union[str, Mapping[str, str]]
Thinking = Union[bool, int, Literal["low", "medium", "high"]]


@dataclass(slots=True)
class LangOptions:
    """Options of a run; every field defaults to ``None`` ("not set here").

    Attributes:
        on_result: Called (sync or async) with the growing ``LangResult`` after every change.
        on_event: Called (sync or async) with each event of the run (``TextDelta``...), the
            same events ``Lang.stream`` yields.
        functions: Tools: ``Tool`` objects, plain callables, or dict definitions.
        function_handler: Runs calls of dict definitions, and every call when given.
        function_call: ``"auto"``, ``"none"``, ``"required"``, a name, or ``{"name": ...}``.
        parallel: Run one turn's calls concurrently (default True).
        early_start: Start a call as soon as its arguments are complete and valid, while
            the rest of the turn still streams (default False). Not for ``sequential``
            tools, calls needing approval, ``parallel=False`` or ``max_concurrency``.
        max_concurrency: Cap on calls running at once (default unlimited).
        parallel_tool_calls: Hint to the provider whether it may make several calls per turn.
        max_iterations: Model requests per run (default 10).
        max_tool_calls: Tool calls executed per run (default unlimited); calls past the cap
            get an error result and the model is then asked to answer without tools.
        timeout: Seconds for the whole run.
        tool_timeout: Seconds for each call (a tool's own ``timeout`` wins).
        approve: Decides whether a call may run: True, False, or a reason string to deny.
        tool_errors: ``"return"`` errors to the model (default) or ``"raise"`` them.
        system_prompt: A system message put before the conversation.
        temperature: Sampling temperature.
        max_tokens: Output token cap.
        top_p: Nucleus sampling.
        stop: Stop sequences.
        thinking: True, a token budget, or ``"low"``/``"medium"``/``"high"``.
        stream: Stream responses (default True).
        auto_execute: Execute calls and continue (default True); False returns them unexecuted.
        model: Per-call model override.
        deps: Any object handed to tools through ``Context.deps``.
        native_tools: Provider-native tools (web search, code execution...) in the
            provider's own shape, sent beside the declared functions.
        extra_body: Keys added to the request body (never replacing a key the SDK sets).
        extra_headers: Headers added to the request.
        output_type: The type of the final answer (a dataclass, TypedDict, NamedTuple,
            pydantic model, Enum, Literal, ``list[...]`` or a primitive): asked for in that
            shape and validated into ``result.output``. ``str`` is a plain text answer.
        output_retries: Repair rounds for an answer that does not fit ``output_type``
            (default 1; they count toward ``max_iterations``).
        limits: Size caps (``SizeLimits``): the longest stream frame, the largest response
            body, how much of an error body is kept, the longest tool result sent to the model.
    """

    on_result: ResultCallback | None = None
    on_event: EventCallback | None = None
    functions: Sequence[Any] | None = None
    function_handler: FunctionHandler | None = None
    function_call: FunctionCallChoice | None = None
    parallel: bool | None = None
    early_start: bool | None = None
    max_concurrency: int | None = None
    parallel_tool_calls: bool | None = None
    max_iterations: int | None = None
    max_tool_calls: int | None = None
    timeout: float | None = None
    tool_timeout: float | None = None
    approve: ApproveCallback | None = None
    tool_errors: Literal["return", "raise"] | None = None
    system_prompt: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    stop: str | Sequence[str] | None = None
    thinking: Thinking | None = None
    stream: bool | None = None
    auto_execute: bool | None = None
    model: str | None = None
    deps: Any = None
    native_tools: Sequence[Mapping[str, Any]] | None = None
    extra_body: Mapping[str, Any] | None = None
    extra_headers: Mapping[str, str] | None = None
    output_type: Any = None
    output_retries: int | None = None
    limits: SizeLimits | None = None


DEFAULTS = LangOptions(
    output_retries=1,
    parallel=True,
    early_start=False,
    max_iterations=10,
    tool_errors="return",
    stream=True,
    auto_execute=True,
)

OptionsLike = Union[LangOptions, Mapping[str, Any], None]
_NAMES = tuple(f.name for f in fields(LangOptions))
_DEFAULT_VALUES = {name: getattr(DEFAULTS, name) for name in _NAMES}


def _check_keys(keys: Iterable[str]) -> None:
    for key in keys:
        if key not in _NAMES:
            close = difflib.get_close_matches(key, _NAMES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"unknown option {key!r}{hint}")


def _set_fields(layer: OptionsLike) -> Iterable[tuple[str, Any]]:
    """The (name, value) pairs a layer sets; ``None`` means "not set here"."""
    if layer is None:
        return ()
    if isinstance(layer, LangOptions):
        return ((name, getattr(layer, name)) for name in _NAMES)
    if isinstance(layer, Mapping):
        _check_keys(layer)
        return layer.items()
    raise TypeError(f"options must be a LangOptions or a dict, not {type(layer).__name__}")


def merge_options(*layers: OptionsLike, **overrides: Any) -> LangOptions:
    """Merge option layers left to right (later wins, ``None`` never overrides) over DEFAULTS."""
    _check_keys(overrides)
    merged = dict(_DEFAULT_VALUES)
    for layer in (*layers, overrides):
        for name, value in _set_fields(layer):
            if value is not None:
                merged[name] = value
    return _validated(LangOptions(**merged))


def _validated(options: LangOptions) -> LangOptions:
    """Refuse values no provider accepts, before any request, with the option's name."""
    from ._errors import ConfigError

    problem = _problem(options)
    if problem is not None:
        raise ConfigError(problem)
    return options


def _problem(o: LangOptions) -> str | None:
    if o.limits is not None and not isinstance(o.limits, SizeLimits):
        return f"limits must be a SizeLimits, not {o.limits!r}"
    if not isinstance(o.early_start, bool):
        return f"early_start must be True or False, not {o.early_start!r}"
    if o.tool_errors not in ("return", "raise"):
        return f"tool_errors must be 'return' or 'raise', not {o.tool_errors!r}"
    for name in ("max_iterations", "max_tool_calls", "max_concurrency", "max_tokens"):
        value = getattr(o, name)
        if value is not None and (not _is_int(value) or value < 1):
            return f"{name} must be an int of at least 1, not {value!r}"
    retries = o.output_retries
    if retries is not None and (not _is_int(retries) or retries < 0):
        return f"output_retries must be an int of at least 0, not {retries!r}"
    for name in ("timeout", "tool_timeout"):
        value = getattr(o, name)
        if value is not None and (not _is_number(value) or not value > 0):
            return f"{name} must be a positive number of seconds, not {value!r}"
    if o.temperature is not None and (not _is_number(o.temperature) or o.temperature < 0):
        return f"temperature must be a number of at least 0, not {o.temperature!r}"
    if o.top_p is not None and (not _is_number(o.top_p) or not 0 <= o.top_p <= 1):
        return f"top_p must be a number from 0 to 1, not {o.top_p!r}"
    return (
        _choice_problem(o.function_call)
        or _thinking_problem(o.thinking)
        or _stop_problem(o)
        or _native_tools_problem(o.native_tools)
        or _functions_problem(o.functions)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _choice_problem(choice: object) -> str | None:
    if choice is None or (isinstance(choice, str) and choice):
        return None
    if isinstance(choice, Mapping):
        function = choice.get("function")
        name = choice.get("name") or (
            function.get("name") if isinstance(function, Mapping) else None
        )
        if isinstance(name, str) and name:
            return None
    return (
        "function_call must be 'auto', 'none', 'required', a function name or "
        f"{{'name': ...}}, not {choice!r}"
    )


def _thinking_problem(thinking: object) -> str | None:
    if thinking is None or isinstance(thinking, bool):
        return None
    if _is_int(thinking) and thinking >= DYNAMIC_THINKING:  # type: ignore[operator]
        return None
    if isinstance(thinking, str) and thinking.lower() in THINKING_BUDGETS:
        return None
    return (
        f"thinking={thinking!r} is not valid: thinking must be True, a token budget (int) "
        "or 'low'/'medium'/'high'"
    )


def _stop_problem(o: LangOptions) -> str | None:
    stop = o.stop
    if stop is None or isinstance(stop, str):
        return None
    if isinstance(stop, Sequence) and all(isinstance(s, str) for s in stop):
        return None
    return f"stop must be a string or a list of strings, not {stop!r}"


def _functions_problem(functions: object) -> str | None:
    # One tool where a list belongs is the usual slip; say what to write, not "not iterable".
    if functions is None:
        return None
    listed = isinstance(functions, Iterable) and not isinstance(functions, (str, Mapping))
    if listed and not callable(functions):
        return None
    name = getattr(functions, "name", None) or getattr(functions, "__name__", "tool")
    return (
        f"functions takes a list of tools: write functions=[{name}], "
        f"not functions={name} (got {type(functions).__name__})"
    )


def _native_tools_problem(native: object) -> str | None:
    if native is None:
        return None
    listed = isinstance(native, Sequence) and not isinstance(native, str)
    if listed and all(isinstance(entry, Mapping) for entry in native):  # type: ignore[attr-defined]
        return None
    return f"native_tools must be a list of dicts in the provider's own shape, not {native!r}"
