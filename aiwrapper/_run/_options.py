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

from .._knowledge._modelrules import DYNAMIC_THINKING, THINKING_BUDGETS
from .._wire._numbers import finite_number
from .._wire._sizelimits import SizeLimits
from ._decisions import Defer

if TYPE_CHECKING:
    from .._conversation._result import FunctionCall, LangResult
    from .._conversation._runevents import RunEvent

__all__ = [
    "CHECKED_OPTIONS",
    "DEFAULTS",
    "LangOptions",
    "OptionsLike",
    "merge_options",
    "set_fields",
]

ResultCallback = Callable[["LangResult"], Union[None, Awaitable[None]]]
EventCallback = Callable[["RunEvent"], Union[None, Awaitable[None]]]
FunctionHandler = Callable[["FunctionCall"], Any]
Approval = Union[bool, str, Defer]
ApproveCallback = Callable[["FunctionCall"], Union[Approval, Awaitable[Approval]]]
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
        approve: Decides whether a call may run: True, False, or a reason string to deny;
            ``DEFER`` to decide later (the run stops, ``Lang.resume`` goes on).
        tool_errors: ``"return"`` errors to the model (default) or ``"raise"`` them.
        system_prompt: A system message put before the conversation.
        temperature: Sampling temperature.
        max_tokens: Output token cap.
        top_p: Nucleus sampling.
        stop: Stop sequences.
        seed: Seed for sampling, for repeatable answers. This option and the seven below
            go only to providers whose API has the field (the README lists them); toward
            another one, setting it is a ``ConfigError`` naming it, never dropped.
        presence_penalty: Penalty (-2 to 2) on tokens already present.
        frequency_penalty: Penalty (-2 to 2) growing with each token's count so far.
        logit_bias: Token id (as a string) to a bias from -100 to 100.
        user: An id of the end user, for the provider's abuse monitoring.
        top_k: Sample from the k likeliest tokens only.
        logprobs: Return the log probability of each answer token (``result.logprobs``,
            ``LogprobsDelta`` events), where the provider's API has them.
        top_logprobs: How many likeliest alternatives (0 to 20) to return per token;
            needs ``logprobs=True``.
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
        telemetry: Record OpenTelemetry spans and metrics when ``opentelemetry-api`` is
            installed (default True); False records nothing for this ``Lang`` or call.
        cache: Prompt caching: ``"auto"`` (default: cache breakpoints or a stable cache
            key, as the provider takes them), ``"extended"`` (also the longer cache lives a
            provider offers: an hour, a day) or False (ask for no caching).
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
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: Mapping[str, float] | None = None
    user: str | None = None
    top_k: int | None = None
    logprobs: bool | None = None
    top_logprobs: int | None = None
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
    telemetry: bool | None = None
    cache: Literal["auto", "extended", False] | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> LangOptions:
        # Before the generated __init__, whose own TypeError names the stray keyword but
        # suggests nothing: the same suggestion a misspelt option gets everywhere else.
        _check_keys(kwargs)
        return object.__new__(cls)  # not super(): slots=True makes a new class


OptionsLike = Union[LangOptions, Mapping[str, Any], None]
_NAMES = tuple(f.name for f in fields(LangOptions))
_KNOWN = frozenset(_NAMES)


def _check_keys(keys: Iterable[str]) -> None:
    for key in keys:
        if key not in _KNOWN:
            close = difflib.get_close_matches(key, _NAMES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"unknown option {key!r}{hint}")


DEFAULTS = LangOptions(
    output_retries=1,
    parallel=True,
    early_start=False,
    max_iterations=10,
    tool_errors="return",
    stream=True,
    auto_execute=True,
    telemetry=True,
    cache="auto",
)

_DEFAULT_VALUES = {name: getattr(DEFAULTS, name) for name in _NAMES}


def set_fields(layer: OptionsLike) -> Iterable[tuple[str, Any]]:
    """The (name, value) pairs a layer sets; ``None`` means "not set here".

    Raises:
        TypeError: ``layer`` is not an options layer, or names an unknown option.
    """
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
    given: dict[str, Any] = {}
    for layer in (*layers, overrides):
        for name, value in set_fields(layer):
            if value is not None:
                given[name] = value
    _validate(given)  # the defaults are valid: only what a layer set is checked
    if given.get("top_logprobs") is not None and not given.get("logprobs"):
        from .._errors import ConfigError

        raise ConfigError("top_logprobs needs logprobs=True")
    return LangOptions(**{**_DEFAULT_VALUES, **given})


def _validate(given: Mapping[str, Any]) -> None:
    """Refuse values no provider accepts, before any request, with the option's name."""
    for name, value in given.items():
        check = _CHECKS.get(name)
        problem = check(name, value) if check is not None else None
        if problem is not None:
            from .._errors import ConfigError

            raise ConfigError(problem)


def _limits_problem(name: str, limits: object) -> str | None:
    return (
        None if isinstance(limits, SizeLimits) else f"{name} must be a SizeLimits, not {limits!r}"
    )


def _flag_problem(name: str, value: object) -> str | None:
    return None if isinstance(value, bool) else f"{name} must be True or False, not {value!r}"


def _cache_problem(name: str, value: object) -> str | None:
    if value is False or value in ("auto", "extended"):
        return None
    return f"{name} must be 'auto', 'extended' or False, not {value!r}"


def _tool_errors_problem(name: str, value: object) -> str | None:
    if value in ("return", "raise"):
        return None
    return f"{name} must be 'return' or 'raise', not {value!r}"


def _count_problem(name: str, value: object) -> str | None:
    if _is_int(value) and value >= 1:  # type: ignore[operator]
        return None
    return f"{name} must be an int of at least 1, not {value!r}"


def _retries_problem(name: str, value: object) -> str | None:
    if _is_int(value) and value >= 0:  # type: ignore[operator]
        return None
    return f"{name} must be an int of at least 0, not {value!r}"


def _seconds_problem(name: str, value: object) -> str | None:
    if finite_number(value) and value > 0:  # type: ignore[operator]
        return None
    return f"{name} must be a positive number of seconds, not {value!r:.80}"


def _temperature_problem(name: str, value: object) -> str | None:
    if finite_number(value) and value >= 0:  # type: ignore[operator]
        return None
    return f"{name} must be a number of at least 0, not {value!r:.80}"


def _top_p_problem(name: str, value: object) -> str | None:
    if finite_number(value) and 0 <= value <= 1:  # type: ignore[operator]
        return None
    return f"{name} must be a number from 0 to 1, not {value!r:.80}"


def _seed_problem(name: str, value: object) -> str | None:
    return None if _is_int(value) else f"{name} must be an int, not {value!r}"


def _top_logprobs_problem(name: str, value: object) -> str | None:
    if _is_int(value) and 0 <= value <= 20:  # type: ignore[operator]
        return None
    return f"{name} must be an int from 0 to 20, not {value!r:.80}"


def _penalty_problem(name: str, value: object) -> str | None:
    if finite_number(value) and -2 <= value <= 2:  # type: ignore[operator]
        return None
    return f"{name} must be a number from -2 to 2, not {value!r}"


def _logit_bias_problem(name: str, value: object) -> str | None:
    if isinstance(value, Mapping) and all(
        isinstance(token, str) and finite_number(bias) and -100 <= bias <= 100
        for token, bias in value.items()
    ):
        return None
    return f"{name} must map token ids (strings) to numbers from -100 to 100, not {value!r}"


def _user_problem(name: str, value: object) -> str | None:
    return None if isinstance(value, str) and value else f"{name} must be a non-empty string"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _choice_problem(name: str, choice: object) -> str | None:
    if choice is None or (isinstance(choice, str) and choice):
        return None
    if isinstance(choice, Mapping):
        function = choice.get("function")
        chosen = choice.get("name") or (
            function.get("name") if isinstance(function, Mapping) else None
        )
        if isinstance(chosen, str) and chosen:
            return None
    return (
        "function_call must be 'auto', 'none', 'required', a function name or "
        f"{{'name': ...}}, not {choice!r}"
    )


def _thinking_problem(name: str, thinking: object) -> str | None:
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


def _stop_problem(name: str, stop: object) -> str | None:
    if stop is None or isinstance(stop, str):
        return None
    if isinstance(stop, Sequence) and all(isinstance(s, str) for s in stop):
        return None
    return f"stop must be a string or a list of strings, not {stop!r}"


def _functions_problem(name: str, functions: object) -> str | None:
    # One tool where a list belongs is the usual slip; say what to write, not "not iterable".
    if functions is None:
        return None
    listed = isinstance(functions, Iterable) and not isinstance(functions, (str, Mapping))
    if listed and not callable(functions):
        return None
    tool = getattr(functions, "name", None) or getattr(functions, "__name__", "tool")
    return (
        f"functions takes a list of tools: write functions=[{tool}], "
        f"not functions={tool} (got {type(functions).__name__})"
    )


def _native_tools_problem(name: str, native: object) -> str | None:
    if native is None:
        return None
    listed = isinstance(native, Sequence) and not isinstance(native, str)
    if listed and all(isinstance(entry, Mapping) for entry in native):  # type: ignore[attr-defined]
        return None
    return f"native_tools must be a list of dicts in the provider's own shape, not {native!r}"


def _callback_problem(name: str, value: object) -> str | None:
    return (
        None if callable(value) else f"{name} must be a function (sync or async), not {value!r:.80}"
    )


def _text_problem(name: str, value: object) -> str | None:
    return None if isinstance(value, str) else f"{name} must be a string, not {value!r:.80}"


def _model_problem(name: str, value: object) -> str | None:
    if isinstance(value, str) and value:
        return None
    return f"{name} must be a non-empty string, not {value!r:.80}"


def _body_problem(name: str, value: object) -> str | None:
    return None if isinstance(value, Mapping) else f"{name} must be a dict, not {value!r:.80}"


def _headers_problem(name: str, value: object) -> str | None:
    if isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return None
    return f"{name} must be a dict of strings, not {value!r:.80}"


# Options whose value is only ever of one kind: a callback, a flag, a string, a dict.
_TYPE_CHECKS: dict[str, Callable[[str, Any], str | None]] = {
    **dict.fromkeys(("on_result", "on_event", "approve", "function_handler"), _callback_problem),
    **dict.fromkeys(("stream", "parallel", "auto_execute", "parallel_tool_calls"), _flag_problem),
    "system_prompt": _text_problem,
    "model": _model_problem,
    "extra_body": _body_problem,
    "extra_headers": _headers_problem,
}
# Each option a value can be wrong for, and its check: (name, value) -> the problem, or None.
_CHECKS: dict[str, Callable[[str, Any], str | None]] = {
    **_TYPE_CHECKS,
    "limits": _limits_problem,
    "early_start": _flag_problem,
    "telemetry": _flag_problem,
    "tool_errors": _tool_errors_problem,
    "cache": _cache_problem,
    "max_iterations": _count_problem,
    "max_tool_calls": _count_problem,
    "max_concurrency": _count_problem,
    "max_tokens": _count_problem,
    "output_retries": _retries_problem,
    "timeout": _seconds_problem,
    "tool_timeout": _seconds_problem,
    "temperature": _temperature_problem,
    "top_p": _top_p_problem,
    "seed": _seed_problem,
    "presence_penalty": _penalty_problem,
    "frequency_penalty": _penalty_problem,
    "logit_bias": _logit_bias_problem,
    "user": _user_problem,
    "top_k": _count_problem,
    "logprobs": _flag_problem,
    "top_logprobs": _top_logprobs_problem,
    "function_call": _choice_problem,
    "thinking": _thinking_problem,
    "stop": _stop_problem,
    "native_tools": _native_tools_problem,
    "functions": _functions_problem,
}
CHECKED_OPTIONS = frozenset(_CHECKS)  # the options whose values merge_options checks
