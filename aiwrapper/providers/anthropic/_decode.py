"""Decoding Anthropic Messages responses: SSE events and whole bodies.

The decoder keys blocks by ``index``, turns text, thinking and ``input_json_delta`` fragments
into neutral events, assigns signatures to the part they belong to, keeps blocks it does not
interpret whole as opaque parts (rebuilt, never raising, by ``_blocks``), reads
cumulative usage from ``message_delta`` and raises the mapped error class for an ``error`` event
inside a 200 stream. ``_provider.py`` and ``_encode.py`` own the request side, ``_errors.py``
the HTTP error bodies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ... import _errors as errors
from ..._conversation._events import (
    Event,
    FinishEvent,
    FinishReason,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._messages import ProviderState
from ..._wire import _jsonscan as jsonscan
from ..._wire._framing import SSEEvent
from ..._wire._jsonenvelope import MISSING, Envelope
from ._blocks import Block, finish_opaque, fold_opaque, unreadable_block
from ._errors import stream_error
from ._name import NAME

__all__ = ["AnthropicStreamDecoder"]

_loads = jsonscan.loads
_scan_object = jsonscan.scan_object

# The two plain deltas: their kind, and the key of the piece they carry.
_TEXT, _INPUT = "text_delta", "input_json_delta"
# Each kind as this module's own string (``is`` tells them apart), and its piece's key.
_PLAIN_KINDS = {_TEXT: (_TEXT, "text"), _INPUT: (_INPUT, "partial_json")}


def _text_piece(payload: Any) -> Any:
    return payload["delta"]["text"]


def _input_piece(payload: Any) -> Any:
    return payload["delta"]["partial_json"]


_NOT_PLAIN: tuple[str, int, Any] = ("", -1, MISSING)
# What a malformed event raises inside a handler; reported as ``StreamError``.
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError)

# --- responses ------------------------------------------------------------------------------

# pause_turn means "resend to continue" (a server-tool loop paused).
_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
    "pause_turn": "pause",
}


def _str(value: Any) -> str:
    """A text field as sent; any other type is a malformed event (reported as StreamError)."""
    if value.__class__ is not str:
        raise TypeError(f"expected a string, got {value!r:.80}")
    return value


def _state(data: dict[str, Any]) -> ProviderState:
    return ProviderState(provider=NAME, data=data)


class AnthropicStreamDecoder:
    """Turns the SSE events of one Messages stream into neutral events.

    Blocks are keyed by their ``index``. Each text and thinking block starts a new part, so
    consecutive blocks never run together. Blocks the SDK does not read (``redacted_thinking``,
    ``server_tool_use``, ``*_tool_result``, unknown types) are collected, including their
    streamed ``input``, and emitted whole as an ``OpaquePartEvent`` when they stop; what
    cannot be read in them is the event's ``problem``, never an exception.
    """

    def __init__(self) -> None:
        self._handlers: dict[str, Callable[[dict[str, Any]], list[Event]]] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "error": self._error,
        }
        self._blocks: dict[int, Block] = {}
        self._usage: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._saw_calls = False
        self._done = False
        # The envelope of the latest plain delta, with that delta's kind and block index.
        self._envelopes = {
            _TEXT: Envelope("text", _text_piece),
            _INPUT: Envelope("partial_json", _input_piece),
        }
        self._envelope = self._envelopes[_TEXT]
        self._kind, self._index = _TEXT, -1

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE event (its ``event:`` name and joined ``data:`` text)."""
        if self._done or event == "ping":
            return []
        try:
            payload = _loads(data)
        except ValueError as exc:
            raise errors.StreamError(
                f"anthropic sent an event that is not JSON: {data[:200]!r}"
            ) from exc
        if not isinstance(payload, dict):
            raise errors.StreamError(
                f"anthropic sent an event that is not an object: {data[:200]!r}"
            )
        kind = payload.get("type") or event
        if kind != "content_block_delta":
            return self.feed_object(kind, payload)
        try:  # nearly every event is a delta: straight to its handler, past the table
            return self._block_delta(payload)
        except _MALFORMED as exc:
            raise errors.StreamError(f"malformed anthropic {kind} event: {exc!r}") from exc

    def feed_events(self, events: list[SSEEvent], into: list[Event]) -> None:
        """Decode a chunk's SSE events into ``into``, as ``feed`` would one at a time.

        Nearly every event is a piece of text or of a call's input for an open block, in an
        envelope repeated byte for byte (``_jsonenvelope.py``): those are read right here, the
        changing value alone scanned, with no call in between (the stream benchmarks measure
        this loop). Any other event goes to ``feed``; nothing here changed state before that.
        """
        blocks, text_delta, call_delta = self._blocks, TextDelta, ToolCallDelta
        reading = self._envelope.tries(len(events))
        for name, data in events:
            value: Any = MISSING
            if name != "ping" and not self._done:
                kind, index = self._kind, self._index
                value = self._envelope.read(data) if reading else MISSING
                if value is MISSING:
                    kind, index, value = self._plain_delta(data)
                    reading = not self._envelope.cold  # learned, or gone cold, just now
            block = blocks.get(index) if value is not MISSING else None
            if block is not None and value.__class__ is str:
                if kind is _INPUT and block.kind == "tool_use" and value:
                    block.streamed = True
                    into.append(call_delta(index, value))
                    continue
                if kind is _TEXT and block.opened:
                    into.append(text_delta(value))
                    continue
            into += self.feed(name, data)

    def _plain_delta(self, data: str) -> tuple[str, int, Any]:
        """The kind, block index and text or input piece of a delta event, parsed whole.

        ``MISSING`` for anything else. A delta event teaches the envelope when it is due.
        """
        payload = _scan_object(data)
        if payload is None:  # not an object: feed says what it is
            return _NOT_PLAIN
        index, delta = payload.get("index"), payload.get("delta")
        if payload.get("type") != "content_block_delta" or index.__class__ is not int:
            return _NOT_PLAIN
        kind = delta.get("type") if delta.__class__ is dict else None
        plain = _PLAIN_KINDS.get(kind) if kind.__class__ is str else None  # a list: unhashable
        if plain is None:
            return _NOT_PLAIN
        kind, key = plain
        if self._envelope.due:
            self._envelope = self._envelopes[kind]
            self._envelope.learn(data, payload)
            self._kind, self._index = kind, index
        return kind, index, delta.get(key)  # type: ignore[union-attr]

    def feed_object(self, kind: str | None, payload: dict[str, Any]) -> list[Event]:
        """Decode one already parsed event; malformed events become ``StreamError``."""
        handler = self._handlers.get(kind or "")
        if handler is None:
            return []  # ping and event types newer than this SDK (forward compatibility)
        try:
            return handler(payload)
        except _MALFORMED as exc:
            raise errors.StreamError(f"malformed anthropic {kind} event: {exc!r}") from exc

    def close(self) -> list[Event]:
        """The body ended: a stream without ``message_stop`` was cut off."""
        if not self._done:
            raise errors.StreamError("anthropic stream ended before message_stop")
        return []

    def decode_message(self, body: Any) -> list[Event]:
        """Events for a whole message body, replayed through the streaming path."""
        if not isinstance(body, dict):
            raise errors.StreamError(f"anthropic response is not a JSON object: {body!r:.200}")
        if body.get("type") == "error":
            return self._error(body)
        content = body.get("content")
        if not isinstance(content, list):
            raise errors.StreamError("anthropic response has no content array")
        start = {"message": {**body, "content": []}}
        events = self.feed_object("message_start", start)
        for index, block in enumerate(content):
            events += self.feed_object(
                "content_block_start", {"index": index, "content_block": block}
            )
            events += self.feed_object("content_block_stop", {"index": index})
        events += self.feed_object(
            "message_delta", {"delta": {"stop_reason": body.get("stop_reason")}}
        )
        return events + self.feed_object("message_stop", {})

    def _message_start(self, payload: dict[str, Any]) -> list[Event]:
        self._usage = dict(payload["message"].get("usage") or {})
        model, response_id = payload["message"].get("model"), payload["message"].get("id")
        if not model:
            return [self._usage_event()]
        return [
            ModelEvent(model, response_id if isinstance(response_id, str) else None),
            self._usage_event(),
        ]

    def _block_start(self, payload: dict[str, Any]) -> list[Event]:
        index, raw = int(payload["index"]), payload["content_block"]
        if raw.__class__ is not dict:  # not even an object: named on its part, the turn goes on
            self._blocks[index] = unreadable_block(raw)
            return []
        raw = dict(raw)
        kind = raw.get("type")
        kind = kind if kind in ("text", "thinking", "tool_use") else "opaque"
        block = self._blocks[index] = Block(kind, raw)
        if kind == "text" and raw.get("text"):
            block.opened = True
            return [TextDelta(_str(raw["text"]), new_part=True)]
        if kind == "thinking":
            # Start the part now: a block with empty text and only a signature is still a part.
            events: list[Event] = [ThinkingDelta(_str(raw.get("thinking") or ""), new_part=True)]
            if raw.get("signature"):
                events.append(PartStateEvent(_state({"signature": _str(raw["signature"])})))
            return events
        if kind == "tool_use":
            return self._tool_start(index, raw)
        return []

    def _tool_start(self, index: int, raw: dict[str, Any]) -> list[Event]:
        self._saw_calls = True
        events: list[Event] = [ToolCallStart(index, raw["id"], raw["name"])]
        extra = {k: v for k, v in raw.items() if k not in ("type", "id", "name", "input")}
        if extra:  # e.g. "caller": kept so the replayed tool_use block is unchanged
            events.append(PartStateEvent(_state({"extra": extra}), index=index))
        return events

    def _block_delta(self, payload: dict[str, Any]) -> list[Event]:
        index, delta = payload["index"], payload["delta"]
        if index.__class__ is not int:  # read as int() reads it; the call only when needed
            index = int(index)
        block = self._blocks[index]
        if block.kind == "opaque":  # first: a block kept whole takes deltas of any shape
            fold_opaque(block, delta)
            return []
        kind = delta["type"]
        if kind == "text_delta" and block.opened:  # the common event: more of an open part
            return [TextDelta(_str(delta["text"]))]
        if kind == "input_json_delta":  # the common event of a call: a piece of its input
            fragment = delta["partial_json"]
            if fragment.__class__ is not str:
                _str(fragment)  # raises, naming what came instead
            if not fragment:
                return []
            block.streamed = True  # only whether input streamed: the assembler keeps the text
            return [ToolCallDelta(index, fragment)]
        if kind == "text_delta":
            block.opened = True
            return [TextDelta(_str(delta["text"]), new_part=True)]
        if kind == "thinking_delta":
            return [ThinkingDelta(_str(delta["thinking"]))]
        if kind == "signature_delta":  # sent once, just before the block stops: assign
            return [PartStateEvent(_state({"signature": _str(delta["signature"])}))]
        if kind == "citations_delta":
            block.citations.append(delta["citation"])
        return []

    def _block_stop(self, payload: dict[str, Any]) -> list[Event]:
        block = self._blocks.pop(int(payload["index"]))
        if block.kind == "tool_use":
            # Streamed input is parsed by the assembler from the deltas; a whole body (or a
            # call with no input deltas) carries the object itself.
            whole = block.raw.get("input")
            if not (whole is None or whole.__class__ is dict):  # reported as StreamError
                raise TypeError(f"tool_use input that is not an object: {whole!r:.80}")
            arguments = None if block.streamed else (whole or {})
            return [ToolCallEnd(int(payload["index"]), arguments)]
        if block.kind == "text" and block.citations:
            # Attached at the end: state on the part earlier would split later text deltas.
            events: list[Event] = [] if block.opened else [TextDelta("", new_part=True)]
            return [*events, PartStateEvent(_state({"citations": block.citations}))]
        if block.kind == "opaque":
            return [_opaque_event(block)]
        return []

    def _message_delta(self, payload: dict[str, Any]) -> list[Event]:
        reason = (payload.get("delta") or {}).get("stop_reason")
        if reason:
            self._stop_reason = reason
        usage = payload.get("usage")
        if not usage:
            return []
        # message_delta usage is cumulative: later values replace, never add.
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        return [self._usage_event()]

    def _message_stop(self, payload: dict[str, Any]) -> list[Event]:
        self._done = True
        events: list[Event] = []
        for block in self._blocks.values():  # a block kept whole is kept even if never stopped
            if block.kind == "opaque":
                block.problem = block.problem or "the stream ended before the block stopped"
                events.append(_opaque_event(block))
        # Calls are detected from content, not from the stop reason; a cut
        # at the limit stays "length" with calls, so their cut-off arguments are explained.
        reason = _STOP_REASONS.get(self._stop_reason or "")
        if self._saw_calls and reason != "length":
            reason = "tool_calls"
        return [*events, FinishEvent(reason or "stop", raw=self._stop_reason)]

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        raise stream_error(payload)

    def _usage_event(self) -> UsageEvent:
        usage = self._usage
        uncached = usage.get("input_tokens")
        written, read = (
            usage.get("cache_creation_input_tokens"),
            usage.get("cache_read_input_tokens"),
        )
        details = usage.get("output_tokens_details") or {}
        return UsageEvent(
            # Anthropic's input_tokens counts uncached input only; the prompt is all three.
            input_tokens=None if uncached is None else uncached + (written or 0) + (read or 0),
            output_tokens=usage.get("output_tokens"),
            cached_input_tokens=read,
            cache_write_tokens=written,
            reasoning_tokens=details.get("thinking_tokens"),
            raw=dict(usage),
        )


def _opaque_event(block: Block) -> OpaquePartEvent:
    finish_opaque(block)
    kind: Literal["thinking", "raw"] = (
        "thinking" if block.raw.get("type") == "redacted_thinking" else "raw"
    )
    return OpaquePartEvent(_state({"block": block.raw}), kind=kind, problem=block.problem)
