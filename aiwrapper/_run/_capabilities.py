"""Checks made before a request against what the model is known to do, and what a request cost.

Before a run sends anything, ``check_options`` compares the request with ``model_info``: tools
for a model known to have no tool calling, or thinking for a model known not to reason, get a
``CapabilityWarning`` (once per process for each provider, model and capability, naming models
of that provider that can). Thinking is then left out of the request, since such models answer
it with an error, and so are ``temperature`` and ``top_p`` for a model known to reject them
(reasoning models that fix their own sampling); tools are still sent and the provider decides.
A model nobody knows passes silently: new models must work. ``request_cost`` prices one
request's tokens. Images and documents a model cannot take are ``_media_checks``'s, which
warns through ``warn_lacking``.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .._knowledge._models import CapabilityWarning, ModelInfo, model_info, models_with
from .._knowledge._tables import rules_for

if TYPE_CHECKING:
    from .._conversation._result import RequestUsage
    from .._tools.nodes import Schema
    from ._options import LangOptions

__all__ = ["check_options", "native_output", "request_cost", "warn_lacking", "warn_once"]

_NOUNS = {
    "tool_call": "function calling",
    "reasoning": "thinking",
    "structured_output": "native structured output",
    "temperature": "sampling parameters",
}


class _Warned:
    """The (provider, model, capability) triples already warned about in this process."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, str, str]] = set()
        self.lock = threading.Lock()

    def first(self, key: tuple[str, str, str]) -> bool:
        with self.lock:
            if key in self.seen:
                return False
            self.seen.add(key)
            return True


_WARNED = _Warned()  # "once per process" is the contract, so this state is process-wide


def warn_once(info: ModelInfo, capability: str, consequence: str) -> None:
    """Warn that ``info``'s model lacks ``capability``, unless already warned in this process."""
    if not _WARNED.first((info.provider, info.model, capability)):
        return
    others = models_with(info.provider, capability)
    hint = f"; models of {info.provider} that have it: {', '.join(others)}" if others else ""
    message = (
        f"{info.provider} model {info.model!r} has no {_NOUNS[capability]}: {consequence}{hint}"
    )
    warnings.warn(message, CapabilityWarning, stacklevel=_user_stacklevel())


def warn_lacking(info: ModelInfo, capability: str, message: str) -> None:
    """Warn ``message`` that ``info``'s model lacks ``capability``, once per process."""
    if _WARNED.first((info.provider, info.model, capability)):
        warnings.warn(message, CapabilityWarning, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The stack level of the first frame outside aiwrapper: the warning points at the caller."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("aiwrapper"):
        frame, level = frame.f_back, level + 1
    return level


def check_options(
    info: ModelInfo | None, options: LangOptions, tools: Sequence[object]
) -> LangOptions:
    """The options to send to the model ``info`` describes, after warning about what it lacks."""
    if info is None:
        return options
    if tools and info.tool_call is False:
        warn_once(info, "tool_call", "the functions are sent, but it may not call them")
    if options.thinking and info.reasoning is False:
        warn_once(info, "reasoning", "the thinking option is not sent")
        options = dataclasses.replace(options, thinking=None)
    sampling = options.temperature is not None or options.top_p is not None
    if sampling and info.temperature is False:
        warn_once(info, "temperature", "temperature and top_p are not sent")
        options = dataclasses.replace(options, temperature=None, top_p=None)
    return options


def native_output(
    provider: str,
    model: str,
    schema: Schema,
    *,
    has_tools: bool,
    gate: Callable[[Schema], bool] | None = None,
) -> bool:
    """Whether to ask ``model`` for structured output natively (else through a final tool).

    A model known to lack it warns once and gets the fallback; so does a model that cannot
    combine it with function declarations when tools are sent. With ``gate`` (the wire's
    ``OutputSupport.native_schemas``), only a model known to have it asks natively, and only
    for a schema ``gate`` accepts.
    """
    info = model_info(provider, model)
    if info is not None and info.structured_output is False:
        warn_once(info, "structured_output", "the answer is asked for through a final tool call")
        return False
    if has_tools and rules_for(provider, model).get("output_with_tools") is False:
        return False
    if gate is not None:
        known = info is not None and info.structured_output is True
        return known and gate(schema)
    return True


def request_cost(info: ModelInfo | None, usage: RequestUsage) -> float | None:
    """One request's cost in USD, or None when a price its tokens need is unknown.

    Input tokens count cached and cache-written ones too; each kind is priced on its own, and
    a price is needed only for a kind of token the request actually used.
    """
    prices = info.cost if info is not None else None
    if prices is None:
        return None
    uncached = usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens
    parts = (
        (uncached, prices.input),
        (usage.cached_input_tokens, prices.cache_read),
        (usage.cache_write_tokens, prices.cache_write),
        (usage.output_tokens, prices.output),
    )
    total = 0.0
    for tokens, price in parts:
        if tokens <= 0:
            continue
        if price is None:
            return None
        total += tokens * price
    return total / 1_000_000
