"""Helpers for testing your own tools and flows without a network: a scripted model.

``Lang.scripted`` replays the turns you write, streams them through the real tool loop, and
records every request it receives, so a test can assert both the final answer and what the
model was sent::

    from aiwrapper.testing import call, scripted, turn

    lang = scripted([turn(call("get_weather", city="Oslo")), "It is 2 °C in Oslo."])
    result = await lang.ask("Weather in Oslo?", functions=[get_weather])
    assert result.function_calls[0].result["temperature"] == 2
    assert lang.requests[1].messages[-1].role == "tool"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._conversation._logprobs import TokenLogprob
from .._lang import Lang
from .._run._options import OptionsLike
from ..providers.scripted import ScriptedRequest, Turn, TurnSource
from ._recording import ReplayMismatchError, cassette

__all__ = ["ReplayMismatchError", "ScriptedRequest", "Turn", "call", "cassette", "scripted", "turn"]


def scripted(turns: TurnSource, *, options: OptionsLike = None) -> Lang:
    """A ``Lang`` that replays ``turns`` (same as ``Lang.scripted``)."""
    return Lang.scripted(turns, options=options)


def call(
    name: str,
    arguments: dict[str, Any] | str | None = None,
    *,
    id: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """One scripted function call; arguments as a dict, JSON text, or keywords."""
    spec: dict[str, Any] = {
        "name": name,
        "arguments": arguments if arguments is not None else kwargs,
    }
    if id is not None:
        spec["id"] = id
    return spec


def turn(
    *calls: dict[str, Any],
    text: str | None = None,
    thinking: str | None = None,
    logprobs: Sequence[TokenLogprob] | None = None,
) -> Turn:
    """One scripted model turn: optional text and thinking, then the given calls.

    ``logprobs`` are the text's tokens, streamed after it when the run asks for them.
    """
    out: dict[str, Any] = {}
    if thinking:
        out["thinking"] = thinking
    if text:
        out["text"] = text
    if logprobs is not None:
        out["logprobs"] = list(logprobs)
    if calls:
        out["function_calls"] = list(calls)
    return out
