"""Run events as the Responses API's streaming events, for ``_front.py``.

The official sequence: ``response.created`` and ``response.in_progress`` (a snapshot with no
output and no usage), then each output item: ``response.output_item.added``, its content
events (a message's ``content_part.added``, ``output_text.delta``\\*, ``output_text.done``,
``content_part.done``; a reasoning item's ``reasoning_summary_part.added``,
``reasoning_summary_text.delta``\\*, ``.done``, ``reasoning_summary_part.done``; a call's
``function_call_arguments.delta``\\*, ``.done``), ``response.output_item.done`` with the whole
item, and last ``response.completed`` (or ``response.incomplete``) carrying every item and the
usage. Every event repeats its name in ``type`` and carries a ``sequence_number`` counting from
0; content events name their item by ``output_index`` and ``item_id``. A message or reasoning
item stays open while deltas go into the same part of the turn; calls are items of their own,
so parallel calls' argument deltas may interleave. A stream that fails midway ends with an
``error`` event and ``response.failed``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, Union

from ..._conversation._messages import Part, TextPart, ThinkingPart, ToolCallPart
from ..._conversation._result import FunctionCall, LangResult
from ..._conversation._runevents import (
    CallArgumentsDelta,
    CallReady,
    CallStarted,
    RunEvent,
    TextDelta,
)
from ..._conversation._runevents import ThinkingDelta as ThinkingText
from .._callstate import packed_id
from .._serving import SLOT, ClientRequest, GatewayError, SSEShape, sse, turn_parts
from ._front_items import (
    Reasoning,
    call_item,
    is_reasoning,
    message_item,
    new_id,
    output_text,
    reasoning_item,
    response_object,
)

__all__ = ["ResponseEventEncoder"]

ItemKind = Literal["message", "reasoning"]
_Found = tuple[bytes, Union[Part, None]]  # whole items sent on the way, and the part found
_NONE: list[dict[str, Any]] = []  # no tokens (never changed)
_DELTA = {
    "message": "response.output_text.delta",
    "reasoning": "response.reasoning_summary_text.delta",
}


@dataclass(slots=True)
class _OpenItem:
    """The message or reasoning item being streamed, and the part of the turn it shows."""

    kind: ItemKind
    part: Part | None
    index: int
    item_id: str
    text: list[str] = field(default_factory=list)
    deltas: SSEShape | None = None  # its delta event, written once
    logprobs: list[dict[str, Any]] | None = None  # its tokens, when the client asked for them


@dataclass(slots=True)
class _OpenCall:
    """A call's item while its arguments stream."""

    part: ToolCallPart
    index: int
    item_id: str
    call_id: str
    streamed: bool = False
    deltas: SSEShape | None = None  # its arguments delta event, written once


class ResponseEventEncoder:
    """Encodes one run's events as Responses SSE events."""

    def __init__(
        self, request: ClientRequest, error_body: Callable[[GatewayError], dict[str, Any]]
    ) -> None:
        self._request = request
        self._error_body = error_body
        self._id = new_id("resp")
        self._created = int(time.time())
        self._sequence = 0
        self._output: dict[int, dict[str, Any]] = {}  # output_index -> the item as last sent
        self._open: _OpenItem | None = None
        self._calls: dict[int, _OpenCall] = {}  # id() of a call -> its open item
        # A call's item waits for the next event: its provider state (packed into the
        # call_id) arrives just after the call starts.
        self._pending: list[FunctionCall] = []
        # Parts of the turn matched to items so far. Events lag behind the turn (the result
        # may already hold later parts), so items are matched to parts in order, never by
        # looking at the turn's latest part.
        self._cursor = 0

    def event(self, event: RunEvent) -> bytes:
        """The SSE events for one run event (empty when it shows nothing here)."""
        item = self._open
        deltas = item.deltas if item is not None and item.kind == "message" else None
        if deltas is not None and event.__class__ is TextDelta and not self._pending:
            assert item is not None  # more text for the open message: its event written once
            text = event.text
            item.text.append(text)
            number = self._sequence
            self._sequence = number + 1
            return deltas.numbered(number, text)
        out = self._flush(event.result) if self._pending else b""
        return out + self._encoded(event)

    def finish(self, result: LangResult) -> bytes:
        """Every item still open closed, then ``response.completed`` or ``.incomplete``."""
        out = self._flush(result) + self._close_open() + self._advance(result, None)[0]
        for open_call in list(self._calls.values()):  # calls cut off at the token limit
            out += self._call_done(open_call.part.call)
        response = self._response(result)
        done = "response.completed" if response["status"] == "completed" else "response.incomplete"
        return out + self._emit(done, response=response)

    def error(self, error: GatewayError) -> bytes:
        """An ``error`` event, then ``response.failed``.

        The event is flat (as documented) and nested (as OpenAI sends it, and as the official
        SDK reads it to raise), so every client sees the failure.
        """
        body = self._error_body(error)["error"]
        limited = error.kind == "rate_limit"
        code = body["code"] or ("rate_limit_exceeded" if limited else "server_error")
        out = self._emit("error", code=code, message=error.message, param=body["param"], error=body)
        failed = self._response(None)
        failed.update(status="failed", error={"code": code, "message": error.message})
        return out + self._emit("response.failed", response=failed)

    def _encoded(self, event: RunEvent) -> bytes:
        if isinstance(event, TextDelta):
            return self._delta("message", event.text, event.result)
        if isinstance(event, ThinkingText):
            return self._delta("reasoning", event.text, event.result)
        if isinstance(event, CallStarted):
            self._pending.append(event.call)
            return b""
        if isinstance(event, CallArgumentsDelta):
            return self._arguments(event.call, event.fragment)
        if isinstance(event, CallReady):
            return self._call_done(event.call)
        return b""

    def _emit(self, kind: str, **fields: Any) -> bytes:
        out = self._begin()
        data = {"type": kind, "sequence_number": self._sequence, **fields}
        self._sequence += 1
        return out + sse(data, kind)

    def _shape(self, kind: str, **fields: Any) -> SSEShape:
        """The event ``_emit`` writes for ``kind`` and ``fields``, its number in a slot."""
        return SSEShape({"type": kind, "sequence_number": SLOT, **fields}, kind)

    def _filled(self, shape: SSEShape, value: str) -> bytes:
        """``shape`` with the next sequence number and ``value`` (as ``_emit`` numbers)."""
        out = self._begin()
        number = self._sequence
        self._sequence += 1
        return out + shape.numbered(number, value)

    def _begin(self) -> bytes:
        """``response.created`` and ``.in_progress`` before the first event, once."""
        if self._sequence:
            return b""
        snapshot = self._response(None)
        self._sequence = 2
        return b"".join(
            sse({"type": kind, "sequence_number": number, "response": snapshot}, kind)
            for number, kind in enumerate(("response.created", "response.in_progress"))
        )

    def _response(self, result: LangResult | None) -> dict[str, Any]:
        output = [self._output[index] for index in sorted(self._output)]
        return response_object(self._request, self._id, self._created, output, result)

    def _added(self, item: dict[str, Any]) -> tuple[int, bytes]:
        out = self._begin()  # before the item is listed: the first snapshot has no output
        index = len(self._output)
        self._output[index] = item
        return index, out + self._emit("response.output_item.added", output_index=index, item=item)

    def _done(self, index: int, item: dict[str, Any]) -> bytes:
        self._output[index] = item
        return self._emit("response.output_item.done", output_index=index, item=item)

    # --- message and reasoning items ---------------------------------------------------

    def _delta(
        self, kind: ItemKind, text: str, result: LangResult, tokens: list[dict[str, Any]] = _NONE
    ) -> bytes:
        """A text or thinking delta; ``tokens`` are a text's log probabilities (when asked)."""
        out = b""
        if self._open is None or self._open.kind != kind:
            out = self._close_open()
            shown, part = self._advance(result, TextPart if kind == "message" else ThinkingPart)
            out += shown + self._open_item(kind, part)
        item = self._open
        assert item is not None
        item.text.append(text)
        if tokens:  # each delta's differ: no shape written once
            if item.logprobs is None:
                item.logprobs = []
            item.logprobs += tokens  # in place: copying would cost what was streamed, per delta
            where = self._where(item)
            return out + self._emit(_DELTA[kind], **where, delta=text, logprobs=tokens)
        if item.deltas is None:
            item.deltas = self._shape(_DELTA[kind], **self._where(item), delta=SLOT, **_extra(kind))
        return out + self._filled(item.deltas, text)

    def _open_item(self, kind: ItemKind, part: Part | None) -> bytes:
        item_id = new_id("msg" if kind == "message" else "rs")
        empty = message_item(item_id, None) if kind == "message" else reasoning_item(item_id, None)
        index, out = self._added(empty)
        self._open = _OpenItem(kind, part, index, item_id)
        where = self._where(self._open)
        if kind == "message":
            return out + self._emit("response.content_part.added", **where, part=output_text(""))
        summary = {"type": "summary_text", "text": ""}
        return out + self._emit("response.reasoning_summary_part.added", **where, part=summary)

    def _close_open(self) -> bytes:
        item, self._open = self._open, None
        if item is None:
            return b""
        text, where = "".join(item.text), self._where(item)
        if item.kind == "message":
            tokens = item.logprobs or []
            out = self._emit("response.output_text.done", **where, text=text, logprobs=tokens)
            part = output_text(text, tokens)
            out += self._emit("response.content_part.done", **where, part=part)
            return out + self._done(item.index, message_item(item.item_id, text, tokens))
        state = item.part.state if isinstance(item.part, ThinkingPart) else None
        summary = {"type": "summary_text", "text": text}
        out = self._emit("response.reasoning_summary_text.done", **where, text=text)
        out += self._emit("response.reasoning_summary_part.done", **where, part=summary)
        # The signature came after the thinking text: read it from the part, now complete.
        return out + self._done(item.index, reasoning_item(item.item_id, ThinkingPart(text, state)))

    def _where(self, item: _OpenItem) -> dict[str, Any]:
        index_key = "content_index" if item.kind == "message" else "summary_index"
        return {"item_id": item.item_id, "output_index": item.index, index_key: 0}

    def _advance(self, result: LangResult, wanted: type | FunctionCall | None) -> _Found:
        """The turn's next part that is ``wanted`` (a part type, or the part of a call).

        Reasoning passed on the way, which no delta shows (redacted thinking, a signature
        alone), goes out as whole items, in its place; ``wanted=None`` passes every part left.
        """
        parts, out = turn_parts(result), b""
        while self._cursor < len(parts):
            part = parts[self._cursor]
            self._cursor += 1
            if _matches(part, wanted):
                return out, part
            if _unshown(part):
                out += self._whole_reasoning(part)
        return out, None

    def _whole_reasoning(self, part: Reasoning) -> bytes:
        out = self._close_open()
        item_id = new_id("rs")
        index, added = self._added(reasoning_item(item_id, None))
        return out + added + self._done(index, reasoning_item(item_id, part))

    # --- calls -------------------------------------------------------------------------

    def _flush(self, result: LangResult) -> bytes:
        pending, self._pending = self._pending, []
        return b"".join(self._call_started(call, result) for call in pending)

    def _call_started(self, call: FunctionCall, result: LangResult) -> bytes:
        out = self._close_open()
        shown, found = self._advance(result, call)
        part = found if isinstance(found, ToolCallPart) else ToolCallPart(call)
        out += shown
        item_id, call_id = new_id("fc"), packed_id(call.id, part)
        index, added = self._added(call_item(item_id, call_id, part, done=False))
        self._calls[id(call)] = _OpenCall(part, index, item_id, call_id)
        return out + added

    def _arguments(self, call: FunctionCall, fragment: str) -> bytes:
        open_call = self._calls.get(id(call))
        if open_call is None or not fragment:
            return b""
        open_call.streamed = True
        if open_call.deltas is None:
            where = {"item_id": open_call.item_id, "output_index": open_call.index}
            kind = "response.function_call_arguments.delta"
            open_call.deltas = self._shape(kind, **where, delta=SLOT)
        return self._filled(open_call.deltas, fragment)

    def _call_done(self, call: FunctionCall) -> bytes:
        open_call = self._calls.pop(id(call), None)
        if open_call is None:
            return b""
        where = {"item_id": open_call.item_id, "output_index": open_call.index}
        arguments = call.arguments_json()
        out = b""
        if not open_call.streamed:  # arguments that came whole: one delta with all of them
            out = self._emit("response.function_call_arguments.delta", **where, delta=arguments)
        out += self._emit(
            "response.function_call_arguments.done", **where, name=call.name, arguments=arguments
        )
        item = call_item(open_call.item_id, open_call.call_id, open_call.part, done=True)
        return out + self._done(open_call.index, item)


def _extra(kind: ItemKind) -> dict[str, Any]:
    return {"logprobs": []} if kind == "message" else {}


def _matches(part: Part, wanted: type | FunctionCall | None) -> bool:
    if isinstance(wanted, FunctionCall):
        return isinstance(part, ToolCallPart) and part.call is wanted
    # Thinking that streams has text; thinking without any is shown whole (_unshown).
    return wanted is not None and type(part) is wanted and bool(getattr(part, "text", True))


def _unshown(part: Part) -> TypeGuard[Reasoning]:
    """Reasoning that no delta streams: a block kept whole, or a signature without text."""
    return is_reasoning(part) and not (isinstance(part, ThinkingPart) and part.text)
