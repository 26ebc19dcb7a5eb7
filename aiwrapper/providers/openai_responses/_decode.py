"""Decoding Responses API answers: SSE events and whole ``response`` bodies, into neutral events.

Every event names itself in its JSON ``type``; the SSE ``event:`` line is not read, since some
proxies leave it out. Output items are keyed by ``item_id`` (or ``output_index``, which
llama-server leaves out, as it does ``sequence_number``). Reasoning summary and raw reasoning
deltas are thinking, ``output_text`` deltas are text, a ``function_call`` item starts a call
whose argument deltas stream until its ``.done``. The finished output items, taken from
``response.output_item.done`` (an item's ``encrypted_content`` is complete only there), are
kept in their order as one opaque part, which ``_encode`` replays verbatim to the same provider
and model. When the request asked for log probabilities, each text delta's (or
whole ``output_text`` part's) tokens follow its text as a ``LogprobsEvent``; text deltas are
then read whole, off the envelope's fast path (``response.output_text.done`` and the terminal
response repeat the list, and are not read for it). Usage and the final status come only with
the terminal event; a stream that ends without one is a ``StreamError``. HTTP error bodies are
the provider's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import _errors as errors
from ..._conversation._events import (
    Event,
    FinishEvent,
    FinishReason,
    LogprobsEvent,
    ModelEvent,
    OpaquePartEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from ..._conversation._messages import ProviderState
from ..._wire import _jsonscan as jsonscan
from ..._wire._framing import SSEEvent
from ..._wire._jsonenvelope import MISSING, Envelope
from ._errors import error_event, failed_response
from ._fields import (
    Key,
    event_key,
    item_key,
    output_index,
    standard_json,
    text_or_none,
    usage_event,
)
from ._logprobs import read_tokens

__all__ = ["ResponsesStreamDecoder"]

_loads = jsonscan.loads
_scan_object = jsonscan.scan_object
# The two plain deltas, each as this module's own string (``is`` tells them apart).
_TEXT, _ARGUMENTS = "response.output_text.delta", "response.function_call_arguments.delta"
_PLAIN_KINDS = {_TEXT: _TEXT, _ARGUMENTS: _ARGUMENTS}
# With logprobs asked, a text delta carries its tokens: it is read whole, never as plain text.
_ARGUMENTS_ONLY = {_ARGUMENTS: _ARGUMENTS}


def _delta_of(payload: Any) -> Any:
    return payload["delta"]


# Each event carries its own sequence number, and OpenAI pads it with a random string.
_PADDING = [
    ("sequence_number", lambda payload: payload["sequence_number"]),
    ("obfuscation", lambda payload: payload["obfuscation"]),
]
_MALFORMED = (LookupError, TypeError, AttributeError, ValueError)
_EMPTY: dict[str, Any] = {}
_PART_BREAK = "\n\n"  # between two reasoning summary parts, as a blank line


class _Call:
    """A streaming call: its stream index, and whether argument text arrived for it yet."""

    __slots__ = ("index", "open", "streamed")

    def __init__(self, index: int) -> None:
        self.index = index
        self.streamed = False
        self.open = True


class ResponsesStreamDecoder:
    """Turns Responses API events into neutral events; one per response.

    Args:
        name: The provider name that errors and the kept output items carry.
        logprobs: The request asked for token log probabilities: each text's tokens follow
            it as a ``LogprobsEvent`` (only then are they read at all).
    """

    __slots__ = (
        "_calls",
        "_done",
        "_envelope",
        "_handlers",
        "_items",
        "_key",
        "_kind",
        "_logprobs",
        "_model",
        "_name",
        "_plain",
        "_reasoning",
        "_refused",
    )

    def __init__(self, name: str, *, logprobs: bool = False) -> None:
        self._name = name
        self._logprobs = logprobs
        self._plain = _ARGUMENTS_ONLY if logprobs else _PLAIN_KINDS
        self._calls: dict[Key, _Call] = {}
        self._items: dict[Key, dict[str, Any]] = {}  # finished items, in order of first sight
        self._reasoning: tuple[Key, int] | None = None  # the thinking part being streamed
        self._model: str | None = None
        self._refused = False
        self._done = False
        # The envelope of the latest plain delta, with that delta's kind and item.
        self._envelope = Envelope("delta", _delta_of, padding=_PADDING)
        self._kind: str = _TEXT
        self._key: Key = 0
        self._handlers: dict[str, Callable[[dict[str, Any]], list[Event]]] = {
            "response.reasoning_summary_text.delta": self._summary,
            "response.reasoning_text.delta": self._raw_reasoning,
            "response.function_call_arguments.delta": self._arguments,
            "response.function_call_arguments.done": self._arguments_done,
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.refusal.delta": self._refusal,
            "response.created": self._response_model,
            "response.in_progress": self._response_model,
            "response.completed": self._terminal,
            "response.incomplete": self._terminal,
            "response.failed": self._terminal,
            "error": self._error,
        }

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one SSE ``data`` payload (``keepalive`` and unknown types add nothing)."""
        if self._done or data == "[DONE]" or (data[:1] != "{" and data.strip() == "[DONE]"):
            return []  # some compatible servers end with [DONE]; OpenAI never sends it
        try:
            payload = _loads(data)
        except _MALFORMED as exc:
            raise errors.StreamError(f"{self._name}: undecodable stream event {data:.200}") from exc
        return self._event(payload, data)

    def _event(self, payload: Any, data: str) -> list[Event]:
        """Decode one parsed event (``data``, its text, names it in an error)."""
        try:
            kind = payload["type"]
            if kind == "response.output_text.delta":  # most events: one compare, no call
                if self._logprobs:
                    return _text_and_tokens(payload, payload.get("logprobs"))
                delta = payload.get("delta")
                if delta.__class__ is str:
                    return [TextDelta(delta)] if delta else []
                return _text(payload)
            handler = self._handlers.get(kind)
            return handler(payload) if handler is not None else []
        except _MALFORMED as exc:
            raise errors.StreamError(f"{self._name}: undecodable stream event {data:.200}") from exc

    def feed_events(self, events: list[SSEEvent], into: list[Event]) -> None:
        """Decode a chunk's SSE events into ``into``, as ``feed`` would one at a time.

        Nearly every event is a piece of text or of a call's arguments, in an envelope
        repeated byte for byte but for its ``sequence_number`` and ``obfuscation`` padding
        (``_jsonenvelope.py``): those are read right here, the piece alone scanned, with no
        call in between. Any other event goes to ``feed``; nothing here changed state before.
        """
        calls, text_delta, call_delta = self._calls, TextDelta, ToolCallDelta
        plain_kinds = self._plain
        envelope = self._envelope
        reading = envelope.tries(len(events))
        for _, data in events:
            piece: Any = MISSING
            payload: Any = None  # the event parsed whole, where it was
            if not self._done:
                kind, key = self._kind, self._key
                if reading:
                    piece = envelope.read(data)
                if piece is MISSING:
                    payload = _scan_object(data)  # None: [DONE], or no object
                    plain: Any = None if payload is None else payload.get("type")
                    # A list, say, is no kind (and unhashable).
                    plain = plain_kinds.get(plain) if plain.__class__ is str else None
                    if plain is _TEXT:
                        key = 0  # text goes to the open text part, whatever its item
                    elif plain is _ARGUMENTS:
                        key = payload.get("item_id") or payload.get("output_index", 0)
                        if key.__class__ is not str and key.__class__ is not int:
                            plain = None
                    if plain is not None:
                        kind = plain
                        if envelope.due:
                            envelope.learn(data, payload)
                            self._kind, self._key = kind, key
                        piece = payload.get("delta")
                    reading = not envelope.cold  # learned, or gone cold, just now
            if piece.__class__ is str and piece:
                if kind is _TEXT:
                    into.append(text_delta(piece))
                    continue
                call = calls.get(key)
                if call is not None and call.open:
                    call.streamed = True
                    into.append(call_delta(call.index, piece))
                    continue
            into += self.feed(None, data) if payload is None else self._event(payload, data)

    def close(self) -> list[Event]:
        """The body ended; a stream without a terminal event was cut off."""
        if not self._done:
            raise errors.StreamError(
                f"{self._name}: stream ended before response.completed, .incomplete or .failed"
            )
        return []

    def whole(self, body: dict[str, Any]) -> list[Event]:
        """Events for a whole (non-streamed) ``response`` body, as its stream would give."""
        out = self._response_model({"response": body})
        for item in body.get("output") or ():
            out += self._whole_item(item)
        return out + self._terminal({"response": body})

    # -- deltas ---------------------------------------------------------------------------

    def _summary(self, payload: dict[str, Any]) -> list[Event]:
        return self._thinking(payload, payload.get("summary_index", 0))

    def _raw_reasoning(self, payload: dict[str, Any]) -> list[Event]:
        return self._thinking(payload, payload.get("content_index", 0))

    def _thinking(self, payload: dict[str, Any], part: int) -> list[Event]:
        delta = text_or_none(payload.get("delta"))
        if not delta:
            return []
        where = (event_key(payload), part)
        if where != self._reasoning:  # a new summary part: a blank line before it
            first, self._reasoning = self._reasoning is None, where
            if not first:
                delta = _PART_BREAK + delta
        return [ThinkingDelta(delta)]

    def _refusal(self, payload: dict[str, Any]) -> list[Event]:
        self._refused = True  # shown as text; the turn ends as content_filter
        return _text(payload)

    def _arguments(self, payload: dict[str, Any]) -> list[Event]:
        call = self._calls.get(payload.get("item_id") or output_index(payload))
        delta = text_or_none(payload.get("delta"))
        if call is None or not call.open or not delta:
            return []
        call.streamed = True
        return [ToolCallDelta(call.index, delta)]

    def _arguments_done(self, payload: dict[str, Any]) -> list[Event]:
        call = self._calls.get(event_key(payload))
        return [] if call is None else self._end_call(call, payload.get("arguments"))

    # -- items ----------------------------------------------------------------------------

    def _item_added(self, payload: dict[str, Any]) -> list[Event]:
        item = payload["item"]
        if item.get("type") != "function_call":
            return []
        return self._start_call(item_key(payload, item), item)

    def _item_done(self, payload: dict[str, Any]) -> list[Event]:
        item = payload["item"]
        key = item_key(payload, item)
        self._items[key] = item
        if item.get("type") != "function_call":
            return []
        out = self._start_call(key, item) if key not in self._calls else []
        return out + self._end_call(self._calls[key], item.get("arguments"))

    def _whole_item(self, item: dict[str, Any]) -> list[Event]:
        kind = item.get("type")
        key = item.get("id") or len(self._items)
        self._items[key] = item
        if kind == "function_call":
            return self._start_call(key, item) + self._end_call(self._calls[key], None)
        if kind == "reasoning":
            parts = [*(item.get("summary") or ()), *(item.get("content") or ())]
            thinking = _PART_BREAK.join(t for p in parts if (t := text_or_none(p.get("text"))))
            return [ThinkingDelta(thinking, new_part=True)] if thinking else []
        if kind != "message":
            return []
        out: list[Event] = []
        for part in item.get("content") or ():
            if part.get("type") == "refusal":
                self._refused = True
            text = text_or_none(part.get("text") or part.get("refusal"))
            if text and self._logprobs and part.get("type") == "output_text":
                out += _text_and_tokens(part, part.get("logprobs"), key="text")
            elif text:
                out.append(TextDelta(text))
        return out

    def _start_call(self, key: Key, item: dict[str, Any]) -> list[Event]:
        if key in self._calls:
            return []
        call = self._calls[key] = _Call(len(self._calls))
        out: list[Event] = [ToolCallStart(call.index, item.get("call_id"), item.get("name") or "")]
        arguments = text_or_none(item.get("arguments"))
        if arguments:  # a server that sends the whole arguments with the item itself
            call.streamed = True
            out.append(ToolCallDelta(call.index, arguments))
        return out

    def _end_call(self, call: _Call, arguments: str | None) -> list[Event]:
        if not call.open:
            return []  # .done, then the item's own done: the call ended once
        call.open = False
        out: list[Event] = []
        arguments = text_or_none(arguments)
        if arguments and not call.streamed:  # no deltas came: the whole text is in .done
            out.append(ToolCallDelta(call.index, arguments))
        out.append(ToolCallEnd(call.index))
        return out

    # -- the response ---------------------------------------------------------------------

    def _response_model(self, payload: dict[str, Any]) -> list[Event]:
        response = payload.get("response") or _EMPTY
        model, response_id = response.get("model"), response.get("id")
        if self._model is not None or not model or model.__class__ is not str:
            return []
        self._model = model
        return [ModelEvent(model, response_id if isinstance(response_id, str) else None)]

    def _terminal(self, payload: dict[str, Any]) -> list[Event]:
        response = payload["response"]
        status = response.get("status")
        if status == "failed":
            raise failed_response(self._name, response)
        self._done = True
        out = self._response_model(payload)
        for call in self._calls.values():  # a call cut off at the limit ends here
            out += self._end_call(call, None)
        usage = response.get("usage")
        if usage:
            out.append(usage_event(usage))
        items = list(self._items.values())
        if items and standard_json(items):  # replayed as they are: no NaN may ride along
            state = ProviderState(self._name, {"model": self._model, "items": items})
            out.append(OpaquePartEvent(state, kind="thinking"))
        out.append(self._finish(status, response.get("incomplete_details") or _EMPTY))
        return out

    def _finish(self, status: str | None, incomplete: dict[str, Any]) -> FinishEvent:
        reason: FinishReason = "stop"
        raw = status
        if status.__class__ is not str:
            status = raw = None
        if status == "incomplete":
            raw = text_or_none(incomplete.get("reason")) or status
            # max_output_tokens, or any reason not known: the output was cut off.
            reason = "content_filter" if raw == "content_filter" else "length"
        elif self._calls:
            reason = "tool_calls"
        elif self._refused:
            reason = "content_filter"
        return FinishEvent(reason, raw)

    def _error(self, payload: dict[str, Any]) -> list[Event]:
        raise error_event(self._name, payload)


def _text(payload: dict[str, Any]) -> list[Event]:
    delta = text_or_none(payload.get("delta"))
    return [TextDelta(delta)] if delta else []


def _text_and_tokens(payload: dict[str, Any], logprobs: Any, key: str = "delta") -> list[Event]:
    """A piece of text, then its tokens' log probabilities (none for no text, or none sent)."""
    text = text_or_none(payload.get(key))
    if not text:
        return []
    tokens = read_tokens(logprobs)
    return [TextDelta(text), LogprobsEvent(tokens)] if tokens else [TextDelta(text)]
