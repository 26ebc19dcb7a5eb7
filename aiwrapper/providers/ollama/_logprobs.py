"""Ollama's ``logprobs``: each generated token's log probability and its alternatives.

Asked for with the top-level ``logprobs: true`` (and ``top_logprobs: N``) of an
``/api/chat`` body (Ollama 0.12.11 and later), every NDJSON line, and a whole
``stream: false`` body, carries ``"logprobs": [{"token", "logprob", "bytes",
"top_logprobs": [{"token", "logprob", "bytes"}]}]`` for the tokens it brings. ``bytes`` (the
token's UTF-8 bytes) and ``top_logprobs`` are left out when empty.
"""

from __future__ import annotations

import math
from typing import Any

from ..._conversation._logprobs import TokenLogprob
from ..._errors import StreamError

__all__ = ["decode_logprobs"]


def decode_logprobs(entries: Any, top: int) -> list[TokenLogprob]:
    """The tokens of one line's ``logprobs``, each with at most ``top`` alternatives.

    Raises:
        StreamError: Anything but the documented shape: wrong types, a missing logprob, one
            that is not a number (``null`` reads as ``-inf``), bytes that are not bytes.
    """
    if entries.__class__ is not list:
        raise StreamError(f"Ollama sent logprobs that are not a list: {entries!r:.200}")
    tokens: list[TokenLogprob] = []
    for entry in entries:
        alternatives: tuple[TokenLogprob, ...] = ()
        if top:
            given = _dict(entry).get("top_logprobs") or []
            if given.__class__ is not list:
                raise StreamError(f"Ollama sent top_logprobs that are not a list: {given!r:.200}")
            alternatives = tuple(_token(item) for item in given[:top])
        tokens.append(_token(entry, alternatives))
    return tokens


def _dict(entry: Any) -> dict[str, Any]:
    if entry.__class__ is not dict:
        raise StreamError(f"Ollama sent a logprobs entry that is not an object: {entry!r:.200}")
    return entry


def _token(entry: Any, alternatives: tuple[TokenLogprob, ...] = ()) -> TokenLogprob:
    token = _dict(entry).get("token", "")
    logprob = entry.get("logprob", math.nan)  # always written: a missing one is unreadable
    if logprob is None:  # JSON has no -inf; a wire that meant it can only say null
        logprob = -math.inf
    if token.__class__ is not str or logprob.__class__ not in (float, int):
        raise StreamError(f"Ollama sent a logprobs entry that cannot be read: {entry!r:.200}")
    if math.isnan(logprob) or logprob == math.inf:
        raise StreamError(f"Ollama sent a log probability that is not one: {entry!r:.200}")
    return TokenLogprob(token, float(logprob), _bytes(entry.get("bytes")), alternatives)


def _bytes(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if value.__class__ is list and all(b.__class__ is int and 0 <= b <= 255 for b in value):
        return tuple(value)
    raise StreamError(f"Ollama sent token bytes that are not bytes: {value!r:.200}")
