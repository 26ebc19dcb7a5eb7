"""Gemini's ``logprobsResult``: each written token's log probability and its alternatives.

A candidate asked for them (``generationConfig.responseLogprobs``) carries
``{"chosenCandidates": [...], "topCandidates": [{"candidates": [...]}, ...]}``: one chosen
entry per decoding step and, at the same index, the likeliest tokens of that step. An entry is
``{"token", "tokenId", "logProbability"}``, written as protobuf JSON, which leaves out a field
holding its default: a certain token (``logProbability`` 0) or an empty one comes without the
key, so a missing key reads as that default. ``avgLogprobs`` and ``logProbabilitySum`` on the
candidate are summaries of the same numbers and are not read.
"""

from __future__ import annotations

import math
from typing import Any

from ..._conversation._logprobs import TokenLogprob
from ..._errors import StreamError

__all__ = ["decode_logprobs"]


def decode_logprobs(result: Any, top: int) -> list[TokenLogprob]:
    """The tokens of one ``logprobsResult``, each with at most ``top`` alternatives.

    Alternatives beyond ``top`` are not read (Gemini may send some that were not asked for,
    and a huge list costs nothing that way).

    Raises:
        StreamError: Anything but the documented shape: wrong types, a logprob that is not a
            number (``null`` reads as ``-inf``).
    """
    if result.__class__ is not dict:
        raise StreamError(f"Gemini sent a logprobsResult that is not an object: {result!r:.200}")
    chosen = _list(result.get("chosenCandidates"), "chosenCandidates")
    steps = _list(result.get("topCandidates"), "topCandidates") if top else []
    tokens: list[TokenLogprob] = []
    for index, entry in enumerate(chosen):
        token, logprob = _entry(entry)
        alternatives = _alternatives(steps[index], top) if index < len(steps) else ()
        tokens.append(TokenLogprob(token, logprob, None, alternatives))
    return tokens


def _list(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if value.__class__ is not list:
        raise StreamError(f"Gemini sent a logprobsResult.{name} that is not a list: {value!r:.200}")
    return value


def _alternatives(step: Any, top: int) -> tuple[TokenLogprob, ...]:
    if step.__class__ is not dict:
        raise StreamError(f"Gemini sent a topCandidates entry that is not an object: {step!r:.200}")
    entries = _list(step.get("candidates"), "topCandidates.candidates")[:top]
    return tuple(TokenLogprob(*_entry(entry)) for entry in entries)


def _entry(entry: Any) -> tuple[str, float]:
    if entry.__class__ is not dict:
        raise StreamError(f"Gemini sent a logprobs candidate that is not an object: {entry!r:.200}")
    token = entry.get("token", "")
    logprob = entry.get("logProbability", 0.0)
    if logprob is None:  # JSON has no -inf; a wire that meant it can only say null
        logprob = -math.inf
    if token.__class__ is not str or logprob.__class__ not in (float, int):
        raise StreamError(f"Gemini sent a logprobs candidate that cannot be read: {entry!r:.200}")
    if math.isnan(logprob) or logprob == math.inf:
        raise StreamError(f"Gemini sent a log probability that is not one: {entry!r:.200}")
    return token, float(logprob)
