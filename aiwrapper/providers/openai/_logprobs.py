"""Token log probabilities on the Chat Completions wire, read from answers and written back.

A choice (of a whole ``chat.completion`` body, or of each ``chat.completion.chunk``) carries
``logprobs``: null, or ``{"content": [...] | null, "refusal": [...] | null}`` where each token
entry is ``{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}``
(``bytes`` a list of byte values, or null for a token that has none): the Responses API
writes the same entries, and reads them here too. Only ``content`` tokens
describe the answer text; a refusal's are not kept. The gateway's Chat front writes the same
shape for a client that asked (``logprobs: true``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..._conversation._events import LogprobsEvent
from ..._conversation._logprobs import TokenLogprob

__all__ = ["logprobs_event", "read_tokens", "wire_logprobs", "wire_tokens"]

# What OpenAI writes for a token it deems impossible; JSON has no -Infinity, so the gateway
# writes this for one too.
_FLOOR = -9999.0


def logprobs_event(logprobs: Any) -> LogprobsEvent | None:
    """The event for a choice's ``logprobs`` (not null); None when it holds no content tokens.

    Raises:
        TypeError: ``logprobs`` or an entry in it is not of the wire's shape.
        ValueError: A log probability that is no number, or a byte outside 0..255.
        LookupError: A token entry without ``token`` or ``logprob``.
        (The decoder reports each as a ``StreamError`` naming the chunk or body.)
    """
    if logprobs.__class__ is not dict:
        raise TypeError(f"logprobs is not an object: {logprobs!r:.80}")
    tokens = read_tokens(logprobs.get("content"))
    return LogprobsEvent(tokens) if tokens else None


def read_tokens(entries: Any) -> list[TokenLogprob]:
    """The tokens of a list of OpenAI's token entries (null: none); the Responses API's
    entries are the same.

    Raises:
        TypeError, ValueError, LookupError: As ``logprobs_event``.
    """
    if entries is None:
        return []
    if entries.__class__ is not list:
        raise TypeError(f"logprobs are not a list: {entries!r:.80}")
    return [_token(entry, top=True) for entry in entries]


def _token(entry: Any, *, top: bool) -> TokenLogprob:
    if entry.__class__ is not dict:
        raise TypeError(f"a logprobs entry is not an object: {entry!r:.80}")
    token = entry["token"]
    if token.__class__ is not str:
        raise TypeError(f"a logprobs token is not text: {token!r:.80}")
    alternatives = entry.get("top_logprobs") if top else None
    if alternatives is None:
        alternatives = ()
    elif alternatives.__class__ is not list:
        raise TypeError(f"top_logprobs is not a list: {alternatives!r:.80}")
    return TokenLogprob(
        token,
        _logprob(entry["logprob"]),
        _bytes(entry.get("bytes")),
        tuple(_token(item, top=False) for item in alternatives),
    )


def _logprob(value: Any) -> float:
    if value is None:  # a wire that cannot write -Infinity in JSON
        return -math.inf
    if value.__class__ not in (int, float) or not value <= 0:  # NaN, +inf and above 0 fail
        raise ValueError(f"a log probability is not a number up to 0: {value!r:.80}")
    return float(value)


def _bytes(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if value.__class__ is not list:
        raise TypeError(f"logprobs bytes are not a list: {value!r:.80}")
    if not all(b.__class__ is int and 0 <= b <= 255 for b in value):
        raise ValueError(f"logprobs bytes are not byte values: {value!r:.80}")
    return tuple(value)


def wire_logprobs(tokens: Sequence[TokenLogprob]) -> dict[str, Any]:
    """A choice's ``logprobs`` for these answer tokens, as OpenAI writes it."""
    return {"content": wire_tokens(tokens), "refusal": None}


def wire_tokens(
    tokens: Sequence[TokenLogprob], *, utf8_bytes: bool = False
) -> list[dict[str, Any]]:
    """Tokens as OpenAI's entries. A token's unknown ``bytes`` are null, or with
    ``utf8_bytes`` its text's UTF-8 (the Responses SDK's types require a list)."""
    return [_wire_token(t, utf8_bytes, top=True) for t in tokens]


def _wire_token(token: TokenLogprob, utf8_bytes: bool, *, top: bool) -> dict[str, Any]:
    logprob = token.logprob if math.isfinite(token.logprob) else _FLOOR
    given = token.bytes
    if given is None and utf8_bytes:
        given = tuple(token.token.encode("utf-8", "replace"))
    entry: dict[str, Any] = {
        "token": token.token,
        "logprob": logprob,
        "bytes": None if given is None else list(given),
    }
    if top:
        entry["top_logprobs"] = [_wire_token(t, utf8_bytes, top=False) for t in token.top_logprobs]
    return entry
