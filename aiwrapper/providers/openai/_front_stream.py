"""Run events as Chat Completions ``chat.completion.chunk`` events, for ``_front.py``.

The official shape: the role on the first delta, text as ``content`` and reasoning as
``reasoning_content`` deltas, a call's first chunk carrying ``id``, ``type``, ``name`` and
``arguments: ""`` and later chunks its index and a fragment, then the ``finish_reason``
chunk, a usage chunk when the client asked for one, and ``data: [DONE]``. A client that
asked for ``logprobs`` gets each text chunk's tokens on it (``text_with_tokens``). A
stream that fails midway ends with an error object and no ``[DONE]``. The helpers here also
build the non-streamed body's pieces, so both shapes say the same thing.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from ..._conversation._messages import LangMessage, OpaquePart, Part, ThinkingPart, ToolCallPart
from ..._conversation._result import FunctionCall, LangResult
from ..._conversation._runevents import (
    CallArgumentsDelta,
    CallReady,
    CallStarted,
    LogprobsDelta,
    RunEvent,
    TextDelta,
)
from ..._conversation._runevents import ThinkingDelta as ThinkingText
from .._callstate import call_part, packed_id
from .._serving import SLOT, ClientRequest, GatewayError, SSEShape, sse
from ..anthropic._front_stream import kept_block, signature
from ._decode import _FINISH
from ._logprobs import wire_logprobs

__all__ = [
    "ChunkEncoder",
    "envelope",
    "new_id",
    "reasoning",
    "usage",
    "wire_call",
    "wire_finish",
]

# Canonical finish reason -> wire: the provider's table read backwards ("error" has no wire
# name a client knows; the turn ended, so "stop").
_WIRE_FINISH: dict[str, str] = {str(canonical): wire for wire, canonical in _FINISH.items()} | {
    "tool_calls": "tool_calls",
    "error": "stop",
    "pause": "stop",
}


class ChunkEncoder:
    """Run events as ``chat.completion.chunk`` SSE events (role first, ``[DONE]`` last)."""

    def __init__(
        self, request: ClientRequest, error_body: Callable[[GatewayError], dict[str, Any]]
    ) -> None:
        self._error_body = error_body
        self._envelope = envelope("chat.completion.chunk", new_id(), request.route)
        self._include_usage = request.include_usage
        self._indexes: dict[int, int] = {}  # id() of a call -> its index in tool_calls
        self._streamed: set[int] = set()  # id() of calls whose arguments went out in pieces
        self._started = False
        # A call's first chunk waits for the next event: its provider state (packed into
        # the id) arrives just after the call starts.
        self._pending: list[FunctionCall] = []
        # The chunks of a text, reasoning or arguments delta, written once for the stream.
        self._text = self._shape({"content": SLOT})
        self._reasoning = self._shape({"reasoning_content": SLOT})
        self._fragment = self._shape(
            {"tool_calls": [{"index": SLOT, "function": {"arguments": SLOT}}]}
        )

    def event(self, event: RunEvent) -> bytes:
        """The chunk for one run event (empty when it shows nothing here)."""
        if event.__class__ is TextDelta and self._started and not self._pending:
            return self._text.text(event.text)
        out = self._flush(event.result) if self._pending else b""
        return out + self._encoded(event)

    def _encoded(self, event: RunEvent) -> bytes:
        if isinstance(event, TextDelta):
            return self._role() + self._text.text(event.text)
        if isinstance(event, ThinkingText):
            return self._role() + self._reasoning.text(event.text)
        if isinstance(event, CallStarted):
            self._pending.append(event.call)
            return b""
        if isinstance(event, CallArgumentsDelta):
            self._streamed.add(id(event.call))
            return self._arguments(event.call, event.fragment)
        if isinstance(event, CallReady) and id(event.call) not in self._streamed:
            # Arguments that came whole (a wire that sends objects): one fragment, all of it.
            return self._arguments(event.call, event.call.arguments_json())
        return b""

    def finish(self, result: LangResult) -> bytes:
        """Signed thinking, the finish reason, usage when asked, then ``[DONE]``."""
        out = bytearray(self._flush(result))
        signed = reasoning(result.messages[-1]).get("thinking_blocks")
        if signed:
            out += self._delta({"thinking_blocks": signed})
        out += self._chunk({}, wire_finish(result))
        if self._include_usage:
            out += sse({**self._envelope, "choices": [], "usage": usage(result)})
        return bytes(out + b"data: [DONE]\n\n")

    def error(self, error: GatewayError) -> bytes:
        """An error object where the next chunk would be, and no ``[DONE]``."""
        return sse(self._error_body(error))

    def _flush(self, result: LangResult) -> bytes:
        pending, self._pending = self._pending, []
        return b"".join(self._call_started(call, result) for call in pending)

    def _call_started(self, call: FunctionCall, result: LangResult) -> bytes:
        index = self._indexes[id(call)] = len(self._indexes)
        entry = {
            "index": index,
            "id": packed_id(call.id, call_part(result, call)),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        return self._delta({"tool_calls": [entry]})

    def _arguments(self, call: FunctionCall, fragment: str) -> bytes:
        index = self._indexes.get(id(call))
        if index is None or not fragment:
            return b""
        return self._role() + self._fragment.numbered(index, fragment)

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return self._chunk(delta, None)

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None) -> bytes:
        return self._role() + sse(self._data(delta, finish_reason))

    def _role(self) -> bytes:
        """The role's chunk before the first delta, as OpenAI sends it; then nothing."""
        if self._started:
            return b""
        self._started = True
        return sse(self._data({"role": "assistant", "content": ""}, None))

    def _data(
        self, delta: dict[str, Any], finish_reason: str | None, logprobs: Any = None
    ) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": logprobs}
        chunk = {**self._envelope, "choices": [choice]}
        if self._include_usage:
            chunk["usage"] = None  # every chunk but the last carries a null usage
        return chunk

    def _shape(self, delta: dict[str, Any]) -> SSEShape:
        return SSEShape(self._data(delta, None))

    def text_with_tokens(self, text: TextDelta | None, tokens: LogprobsDelta) -> bytes:
        """A text chunk carrying its tokens' log probabilities, for a client that asked for
        them (``TextWithTokens`` pairs them; tokens of no text go on an empty delta)."""
        out = self._flush(tokens.result) if self._pending else b""
        content = "" if text is None else text.text
        data = self._data({"content": content}, None, wire_logprobs(tokens.tokens))
        return out + self._role() + sse(data)


def new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex


def envelope(kind: str, response_id: str, model: str) -> dict[str, Any]:
    return {"id": response_id, "object": kind, "created": int(time.time()), "model": model}


def wire_finish(result: LangResult) -> str:
    return _WIRE_FINISH.get(result.finish_reason or "stop", "stop")


def usage(result: LangResult) -> dict[str, Any]:
    """The run's token counts in the wire's names; cached input (when a backend read or wrote
    its prompt cache) in ``prompt_tokens_details``, part of ``prompt_tokens`` as on the wire."""
    usage = result.usage
    out: dict[str, Any] = {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }
    if usage.cached_input_tokens or usage.cache_write_tokens:
        out["prompt_tokens_details"] = {
            "cached_tokens": usage.cached_input_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
        }
    return out


def wire_call(part: ToolCallPart) -> dict[str, Any]:
    """A call of the finished turn, its id carrying the call's provider state."""
    call = part.call
    return {
        "id": packed_id(call.id, part),
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json()},
    }


def reasoning(turn: LangMessage) -> dict[str, Any]:
    """``reasoning_content``, and ``thinking_blocks`` when an Anthropic backend signed its
    thinking (or redacted it): the blocks it needs back, in order, for a client to echo."""
    out: dict[str, Any] = {}
    if turn.thinking:
        out["reasoning_content"] = turn.thinking
    blocks = [block for block in map(_anthropic_thinking, turn.parts) if block is not None]
    if blocks:
        out["thinking_blocks"] = blocks
    return out


def _anthropic_thinking(part: Part) -> dict[str, Any] | None:
    if isinstance(part, ThinkingPart):
        signed = signature(part)
        return {"type": "thinking", "thinking": part.text, "signature": signed} if signed else None
    if isinstance(part, OpaquePart) and part.kind == "thinking":
        return kept_block(part)
    return None
