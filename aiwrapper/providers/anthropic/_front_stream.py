"""Run events as the Anthropic Messages event sequence, for ``_front.py``.

A stream opens with ``message_start``; each run of text, each run of thinking and each tool
call is a content block (``content_block_start``, its deltas, ``content_block_stop``), opened
when its first event arrives and stopped when something else begins; ``message_delta`` (stop
reason, usage) and ``message_stop`` end a stream that succeeded, an ``error`` event one that
did not. Run events carry no signatures: a thinking block's signature is read, when the block
stops, from the thinking part of the turn being streamed (the backend sent it just before).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..._conversation._messages import OpaquePart, Part, ThinkingPart
from ..._conversation._result import FunctionCall, LangResult
from ..._conversation._runevents import (
    CallArgumentsDelta,
    CallReady,
    CallStarted,
    RunEvent,
    TextDelta,
)
from ..._conversation._runevents import ThinkingDelta as ThinkingText
from .._callstate import call_part, packed_id
from .._serving import SLOT, GatewayError, SSEShape, sse, turn_parts
from ._decode import _STOP_REASONS
from ._encode import wire_id

__all__ = ["EventEncoder", "kept_block", "signature", "stop_reason", "usage"]

# Canonical finish reason -> wire: the decoder's table read backwards, first name wins.
_WIRE_STOP: dict[str, str] = {}
for _wire, _canonical in _STOP_REASONS.items():
    _WIRE_STOP.setdefault(_canonical, _wire)

BlockKind = Literal["text", "thinking", "tool_use", "kept"]


class EventEncoder:
    """Encodes one run's events as Messages SSE events."""

    def __init__(
        self,
        model: str,
        message_id: str,
        error_body: Callable[[GatewayError], dict[str, Any]],
    ) -> None:
        self._model = model
        self._id = message_id
        self._error_body = error_body
        self._index = -1  # the open block's index; -1 before the first block
        self._open: BlockKind | None = None
        self._call: FunctionCall | None = None  # the call whose tool_use block is open
        self._streamed: set[int] = set()  # id() of calls whose input went out in pieces
        # Blocks cannot interleave, but some wires interleave parallel calls' arguments:
        # calls started while another streams wait, their fragments kept, until it is done.
        self._waiting: list[FunctionCall] = []
        self._buffered: dict[int, list[str]] = {}
        self._ready: set[int] = set()  # id() of waiting calls whose arguments are complete
        self._started = False
        # A call's block waits for the next event: its provider state (packed into the id)
        # arrives just after the call starts.
        self._fresh: list[FunctionCall] = []
        self._parts_seen = 0  # parts of the turn looked at for blocks kept whole

    def event(self, event: RunEvent) -> bytes:
        """The SSE events for one run event (empty when it shows nothing here)."""
        out = self._kept_blocks(event.result)
        if self._fresh:
            out += self._flush(event.result)
        return out + self._encoded(event)

    def _kept_blocks(self, result: LangResult) -> bytes:
        """Blocks no run event shows (redacted thinking, a signature alone), whole.

        A part is looked at once settled: once a later part exists, or the turn is over.
        """
        parts = turn_parts(result)
        settled = len(parts) - (result._streaming is not None)
        if settled <= self._parts_seen:  # the common case: one length check per event
            return b""
        new, self._parts_seen = parts[self._parts_seen : settled], settled
        return b"".join(self._kept(part, result) for part in new)

    def _kept(self, part: Part, result: LangResult) -> bytes:
        block = kept_block(part)
        if block is not None:
            return self._open_block("kept", block, result) + self._stop_open(result)
        if not isinstance(part, ThinkingPart) or part.text:
            return b""
        # Thinking with no text (only a signature): no delta showed it, so it comes whole.
        empty = {"type": "thinking", "thinking": "", "signature": ""}
        out = self._open_block("kept", empty, result)
        signed = signature(part)
        if signed:
            out += _delta(self._index, "signature_delta", "signature", signed)
        return out + self._stop_open(result)

    def _flush(self, result: LangResult) -> bytes:
        fresh, self._fresh = self._fresh, []
        return b"".join(self._call_started(call, result) for call in fresh)

    def _encoded(self, event: RunEvent) -> bytes:
        if isinstance(event, TextDelta):
            return self._into("text", event.result) + _delta(
                self._index, "text_delta", "text", event.text
            )
        if isinstance(event, ThinkingText):
            return self._into("thinking", event.result) + _delta(
                self._index, "thinking_delta", "thinking", event.text
            )
        if isinstance(event, CallStarted):
            self._fresh.append(event.call)
            return b""
        if isinstance(event, CallArgumentsDelta):
            return self._arguments(event.call, event.fragment)
        if isinstance(event, CallReady):
            return self._call_ready(event.call, event.result)
        return b""

    def finish(self, result: LangResult) -> bytes:
        """The last block's stop, ``message_delta`` and ``message_stop``."""
        self._ready.update(id(call) for call in self._waiting)
        out = self._begin() + self._kept_blocks(result) + self._flush(result)
        out += self._stop_open(result) + self._next_waiting(result)
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(result), "stop_sequence": None},
            "usage": usage(result),
        }
        stop = sse(event="message_stop", data={"type": "message_stop"})
        return out + sse(event="message_delta", data=delta) + stop

    def error(self, error: GatewayError) -> bytes:
        """An ``error`` event, and no ``message_stop``."""
        return sse(event="error", data=self._error_body(error))

    def _begin(self) -> bytes:
        if self._started:
            return b""
        self._started = True
        message: dict[str, Any] = {
            "id": self._id,
            "type": "message",
            "role": "assistant",
            "model": self._model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            # Input tokens are known when the backend's turn ends: message_delta says them.
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return sse(event="message_start", data={"type": "message_start", "message": message})

    def _into(self, kind: BlockKind, result: LangResult) -> bytes:
        """Open a block of ``kind`` unless one is open already."""
        if self._open == kind and kind != "tool_use":
            return b""
        block: dict[str, Any] = {"type": kind, kind: ""}
        if kind == "thinking":
            block["signature"] = ""
        return self._open_block(kind, block, result)

    def _call_started(self, call: FunctionCall, result: LangResult) -> bytes:
        if self._call is None:
            return self._start_call(call, result)
        self._waiting.append(call)
        self._buffered[id(call)] = []
        return b""

    def _arguments(self, call: FunctionCall, fragment: str) -> bytes:
        if call is self._call:
            self._streamed.add(id(call))
            return _delta(self._index, "input_json_delta", "partial_json", fragment)
        buffered = self._buffered.get(id(call))
        if buffered is not None:
            buffered.append(fragment)
        return b""

    def _call_ready(self, call: FunctionCall, result: LangResult) -> bytes:
        if call is not self._call:
            self._ready.add(id(call))
            return b""
        out = b""
        if id(call) not in self._streamed:  # arguments that came whole: all in one fragment
            out = _delta(self._index, "input_json_delta", "partial_json", call.arguments_json())
        return out + self._stop_open(result) + self._next_waiting(result)

    def _next_waiting(self, result: LangResult) -> bytes:
        """Blocks for the calls that waited: whole while complete, then the next one live."""
        out = b""
        while self._waiting:
            call = self._waiting.pop(0)
            out += self._start_call(call, result)
            pieces = "".join(self._buffered.pop(id(call)))
            if id(call) not in self._ready:  # still arriving: it streams on from here
                if pieces:
                    self._streamed.add(id(call))
                    out += _delta(self._index, "input_json_delta", "partial_json", pieces)
                return out
            whole = call.arguments_json()
            out += _delta(self._index, "input_json_delta", "partial_json", whole)
            out += self._stop_open(result)
        return out

    def _start_call(self, call: FunctionCall, result: LangResult) -> bytes:
        call_id = packed_id(wire_id(call.id), call_part(result, call))
        block = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
        out = self._open_block("tool_use", block, result)
        self._call = call
        return out

    def _open_block(self, kind: BlockKind, block: dict[str, Any], result: LangResult) -> bytes:
        out = self._begin() + self._stop_open(result)
        self._index += 1
        self._open = kind
        start = {"type": "content_block_start", "index": self._index, "content_block": block}
        return out + sse(event="content_block_start", data=start)

    def _stop_open(self, result: LangResult) -> bytes:
        if self._open is None:
            return b""
        out = b""
        if self._open == "thinking":
            signed = _latest_signature(result)
            if signed:
                out = _delta(self._index, "signature_delta", "signature", signed)
        self._open, self._call = None, None
        stop = {"type": "content_block_stop", "index": self._index}
        return out + sse(event="content_block_stop", data=stop)


def stop_reason(result: LangResult) -> str:
    """The wire stop reason of the run's last turn."""
    return _WIRE_STOP.get(result.finish_reason or "stop", "end_turn")


def usage(result: LangResult) -> dict[str, int]:
    """The run's token counts in the wire's names.

    The wire's ``input_tokens`` counts uncached input only; tokens read from or written to a
    backend's prompt cache go in their own fields (sent when there are any).
    """
    counts = result.usage
    read, written = counts.cached_input_tokens, counts.cache_write_tokens
    out = {"input_tokens": counts.input_tokens - read - written}
    if read or written:
        out |= {"cache_creation_input_tokens": written, "cache_read_input_tokens": read}
    return out | {"output_tokens": counts.output_tokens}


def signature(part: Part) -> str | None:
    """A thinking part's signature when an Anthropic backend made it (no other is valid)."""
    state = part.state
    if state is None or state.provider != "anthropic":
        return None
    value = state.data.get("signature")
    return value if isinstance(value, str) else None


def kept_block(part: Part) -> dict[str, Any] | None:
    """A block an Anthropic backend sent that the SDK keeps whole (redacted thinking...)."""
    if not isinstance(part, OpaquePart) or part.state.provider != "anthropic":
        return None
    block = part.state.data.get("block")
    return dict(block) if isinstance(block, dict) and isinstance(block.get("type"), str) else None


def _latest_signature(result: LangResult) -> str | None:
    """The signature of the turn's latest thinking part (the turn streaming, else the last)."""
    for part in reversed(turn_parts(result)):
        if isinstance(part, ThinkingPart):
            return signature(part)
    return None


def _delta(index: int, kind: str, key: str, value: str) -> bytes:
    shape = _DELTAS.get((kind, key))
    if shape is not None:  # the common deltas: written once
        return shape.numbered(index, value)
    payload = {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: value}}
    return sse(event="content_block_delta", data=payload)


def _delta_shape(kind: str, key: str) -> SSEShape:
    payload = {"type": "content_block_delta", "index": SLOT, "delta": {"type": kind, key: SLOT}}
    return SSEShape(payload, "content_block_delta")


_DELTAS = {
    (kind, key): _delta_shape(kind, key)
    for kind, key in (
        ("text_delta", "text"),
        ("thinking_delta", "thinking"),
        ("input_json_delta", "partial_json"),
        ("signature_delta", "signature"),
    )
}
