"""Token log probabilities on the Responses wire, read from answers and written by the front.

They are asked for with ``include: ["message.output_text.logprobs"]`` (and ``top_logprobs``,
0 to 20 alternatives per token). Each ``output_text`` part then holds ``logprobs``: a list of
``{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}``; a streamed
``response.output_text.delta`` carries the entries of its own tokens (OpenAI leaves ``bytes``
out there), and ``response.output_text.done`` repeats the whole list. A logprob of null is
read as ``-inf``; a malformed entry (not an object, no ``token``, a logprob that is no number)
raises ``TypeError``/``ValueError``/``KeyError``, which the decoder reports as a
``StreamError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..._conversation._logprobs import TokenLogprob

__all__ = ["INCLUDE", "read_tokens", "split_tokens", "wire_tokens"]

INCLUDE = "message.output_text.logprobs"  # the ``include`` entry that asks for them
# What a logprob JSON cannot hold (-inf) is written as: OpenAI's own "very unlikely" value.
_UNLIKELY = -9999.0


def read_tokens(value: Any) -> list[TokenLogprob]:
    """The tokens of a ``logprobs`` field (absent or null: none)."""
    if value is None:
        return []
    if value.__class__ is not list:
        raise TypeError(f"logprobs must be a list, not {value!r:.80}")
    return [_token(entry, nested=False) for entry in value]


def _token(entry: Any, *, nested: bool) -> TokenLogprob:
    if entry.__class__ is not dict:
        raise TypeError(f"a logprobs entry must be an object, not {entry!r:.80}")
    token = entry["token"]
    if token.__class__ is not str:
        raise TypeError(f"a logprobs token must be a string, not {token!r:.80}")
    top: tuple[TokenLogprob, ...] = ()
    alternatives = entry.get("top_logprobs")
    if not nested and alternatives is not None:
        if alternatives.__class__ is not list:
            raise TypeError(f"top_logprobs must be a list, not {alternatives!r:.80}")
        top = tuple(_token(alternative, nested=True) for alternative in alternatives)
    return TokenLogprob(token, _logprob(entry["logprob"]), _bytes(entry.get("bytes")), top)


def _logprob(value: Any) -> float:
    if value is None:  # a probability too small to say
        return -math.inf
    if value.__class__ is not float and value.__class__ is not int:
        raise TypeError(f"a logprob must be a number, not {value!r:.80}")
    number = float(value)
    if math.isnan(number) or number > 0:
        raise ValueError(f"a logprob must be at most 0, not {value!r}")
    return number


def _bytes(value: Any) -> tuple[int, ...] | None:
    if value is None:
        return None
    if value.__class__ is not list:
        raise TypeError(f"a token's bytes must be a list, not {value!r:.80}")
    if not all(b.__class__ is int and 0 <= b <= 255 for b in value):
        raise ValueError(f"a token's bytes must be ints from 0 to 255: {value!r:.80}")
    return tuple(value)


def wire_tokens(tokens: Sequence[TokenLogprob]) -> list[dict[str, Any]]:
    """Tokens as the wire's entries, every field present as the SDK's types require."""
    return [_entry(token, top=True) for token in tokens]


def _entry(token: TokenLogprob, *, top: bool) -> dict[str, Any]:
    logprob = token.logprob if math.isfinite(token.logprob) else _UNLIKELY
    given = token.bytes
    entry: dict[str, Any] = {
        "token": token.token,
        "logprob": logprob,
        # Unknown bytes are the token's own UTF-8 (the SDK's types require a list).
        "bytes": list(given) if given is not None else list(token.token.encode("utf-8", "replace")),
    }
    if top:
        entry["top_logprobs"] = [_entry(t, top=False) for t in token.top_logprobs]
    return entry


def split_tokens(texts: Sequence[str], tokens: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The entries for each of several texts the tokens were written as, in order.

    A turn's text runs (before and after a call, say) become separate message items; each
    takes the tokens whose text adds up to its length, the last one whatever is left.
    """
    lists: list[list[dict[str, Any]]] = []
    at = 0
    for index, text in enumerate(texts):
        if index == len(texts) - 1:
            lists.append(tokens[at:])
            break
        start, length = at, 0
        while at < len(tokens) and length < len(text):
            length += len(tokens[at]["token"])
            at += 1
        lists.append(tokens[start:at])
    return lists
