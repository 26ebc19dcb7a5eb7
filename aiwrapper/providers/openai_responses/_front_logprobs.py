"""Token log probabilities on the gateway's Responses front: asked for, and sent back.

A client asks with ``include: ["message.output_text.logprobs"]``, with ``top_logprobs`` (0 to
20) alternatives per token. ``top_logprobs`` above 0 without the include asks for them too
(alternatives make no sense without the tokens they stand beside); 0, the API's default that
OpenAI echoes on every response, asks for nothing, so a client that sends back what it got
is not refused by a backend without logprobs. Toward such a backend, a request that asks is
a 400 naming ``logprobs``.

The answer's ``output_text`` parts carry the tokens in ``logprobs`` (``[]`` when not asked).
Streamed, the run gives each text delta's tokens as a ``LogprobsDelta`` right after its
``TextDelta``: the encoder here holds each text delta until the next event, so that its
``response.output_text.delta`` carries them; ``.done``, the finished part and item, and
``response.completed`` carry the whole list. Only a request that asked gets this encoder:
the others are relayed exactly as before, at the same cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._conversation._result import LangResult
from ..._conversation._runevents import LogprobsDelta, RunEvent, TextDelta
from .._serving import GatewayError, bad_request, check_number
from ._front_stream import ResponseEventEncoder
from ._logprobs import INCLUDE, split_tokens, wire_tokens

__all__ = ["LogprobsEventEncoder", "attach_logprobs", "logprobs_options"]

_MOST_ALTERNATIVES = 20


def logprobs_options(body: Mapping[str, Any], included: list[Any]) -> dict[str, Any]:
    """The run options a request's ``include`` and ``top_logprobs`` ask for (none: ``{}``)."""
    top = check_number(body, "top_logprobs", integer=True)
    if top is not None and not 0 <= top <= _MOST_ALTERNATIVES:
        message = f"'top_logprobs' must be an integer from 0 to {_MOST_ALTERNATIVES}"
        raise bad_request(message, "top_logprobs")
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
    """The Responses event stream with each text delta's tokens in its ``logprobs``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._held: TextDelta | None = None  # text whose tokens may come with the next event

    def event(self, event: RunEvent) -> bytes:
        """The SSE events for one run event; a text delta goes out with the event after it."""
        held = self._held
        if held is None:
            if event.__class__ is TextDelta:
                self._held = event
                return b""
            return super().event(event)
        self._held = None
        if isinstance(event, LogprobsDelta):
            out = self._flush(held.result) if self._pending else b""
            tokens = wire_tokens(event.tokens)
            return out + self._delta("message", held.text, held.result, tokens)
        return super().event(held) + self.event(event)  # no tokens came for that text

    def finish(self, result: LangResult) -> bytes:
        """The held text, then the end of the stream."""
        return self._release() + super().finish(result)

    def error(self, error: GatewayError) -> bytes:
        """The held text, then the failure."""
        return self._release() + super().error(error)

    def _release(self) -> bytes:
        held, self._held = self._held, None
        return super().event(held) if held is not None else b""
