"""Token log probabilities: how likely the model found each token of its answer.

Plain data on the ground floor. The providers whose wire returns them decode them into
``TokenLogprob`` records when the run asked for them (``logprobs=True``, with
``top_logprobs`` alternatives per token); they collect on ``LangResult.logprobs`` for the
latest turn and stream as ``LogprobsDelta`` events.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["TokenLogprob", "logprobs_from_jsonable", "logprobs_to_jsonable"]


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One token the model wrote, its log probability, and the likeliest alternatives.

    Attributes:
        token: The token's text.
        logprob: Its natural log probability (0 is certain; ``-inf`` where a wire says so).
        bytes: The token's UTF-8 bytes where the wire gives them (a token may be part of a
            character), else None.
        top_logprobs: The likeliest tokens at this position, most likely first, as many as
            ``top_logprobs`` asked for (their own ``top_logprobs`` are empty).
    """

    token: str
    logprob: float
    bytes: tuple[int, ...] | None = None
    top_logprobs: tuple[TokenLogprob, ...] = ()


def logprobs_to_jsonable(tokens: Sequence[TokenLogprob]) -> list[dict[str, Any]]:
    """Tokens as plain JSON data (what a durable run stores), read back by the function below.

    A log probability that JSON cannot hold (``-inf``) is written as None.
    """
    return [_token_to_jsonable(t) for t in tokens]


def logprobs_from_jsonable(data: Sequence[Any]) -> list[TokenLogprob]:
    """The tokens ``logprobs_to_jsonable`` wrote."""
    return [_token_from_jsonable(item) for item in data]


def _token_to_jsonable(token: TokenLogprob) -> dict[str, Any]:
    logprob = token.logprob if math.isfinite(token.logprob) else None
    out: dict[str, Any] = {"token": token.token, "logprob": logprob}
    if token.bytes is not None:
        out["bytes"] = list(token.bytes)
    if token.top_logprobs:
        out["top_logprobs"] = [_token_to_jsonable(t) for t in token.top_logprobs]
    return out


def _token_from_jsonable(item: Any) -> TokenLogprob:
    logprob = item["logprob"]
    given = item.get("bytes")
    return TokenLogprob(
        str(item["token"]),
        -math.inf if logprob is None else float(logprob),
        None if given is None else tuple(int(b) for b in given),
        tuple(_token_from_jsonable(t) for t in item.get("top_logprobs", ())),
    )
