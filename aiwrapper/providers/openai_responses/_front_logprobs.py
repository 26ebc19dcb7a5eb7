"""Token log probabilities on the gateway's Responses front: asked for, and sent back.

A client asks with ``include: ["message.output_text.logprobs"]``, with ``top_logprobs`` (0 to
20) alternatives per token. ``top_logprobs`` above 0 without the include asks for them too
(alternatives make no sense without the tokens they stand beside); 0, the API's default that
OpenAI echoes on every response, asks for nothing, so a client that sends back what it got
is not refused by a backend without logprobs. Toward such a backend, a request that asks is
a 400 naming ``logprobs``.

The answer's ``output_text`` parts carry the tokens in ``logprobs`` (``[]`` when not asked).
Streamed, the run gives each text delta's tokens as a ``LogprobsDelta`` right after its
``TextDelta``: ``TextWithTokens`` holds each text delta until the next event, and the encoder
here writes its ``response.output_text.delta`` carrying them; ``.done``, the finished part
and item, and ``response.completed`` carry the whole list. Only a request that asked gets
this: the others are relayed exactly as before, at the same cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._conversation._result import LangResult
from ..._conversation._runevents import LogprobsDelta, TextDelta
from ..openai._front_options import read_top_logprobs
from ._front_stream import ResponseEventEncoder
from ._logprobs import INCLUDE, split_tokens, wire_tokens

__all__ = ["LogprobsEventEncoder", "attach_logprobs", "logprobs_options"]


def logprobs_options(body: Mapping[str, Any], included: list[Any]) -> dict[str, Any]:
    """The run options a request's ``include`` and ``top_logprobs`` ask for (none: ``{}``)."""
    top = read_top_logprobs(body)
    if INCLUDE not in included and not top:
        return {}
    return {"logprobs": True, "top_logprobs": top}


def attach_logprobs(output: list[dict[str, Any]], result: LangResult) -> None:
    """The turn's tokens into the ``output_text`` parts of ``output``'s message items."""
    parts = [item["content"][0] for item in output if item["type"] == "message"]
    if not parts:
        return
    lists = split_tokens([part["text"] for part in parts], wire_tokens(result.logprobs))
    for part, tokens in zip(parts, lists, strict=True):
        part["logprobs"] = tokens


class LogprobsEventEncoder(ResponseEventEncoder):
    """The Responses event stream for a client that asked for logprobs (``TextWithTokens``
    pairs each text delta with its tokens)."""

    def text_with_tokens(self, text: TextDelta | None, tokens: LogprobsDelta) -> bytes:
        """The ``response.output_text.delta`` of ``text`` with its tokens in ``logprobs``
        (tokens of no text have no delta to go on: nothing)."""
        if text is None:
            return b""
        out = self._flush(text.result) if self._pending else b""
        return out + self._delta("message", text.text, text.result, wire_tokens(tokens.tokens))
