"""The one assembler: folds neutral events into the assistant message of a turn.

Every provider, streamed or not, produces the same events (``_events.py``); this module turns
them into ``LangMessage`` parts and ``FunctionCall`` records, keeping parts in arrival order and
opaque provider state on the part it came with. While someone watches (``live``) it also keeps
a best-effort parse of arguments as they stream, so partial calls can be shown.

Every delta costs O(its own size): text and thinking pile up as chunks, joined only when read
(``answer``, ``thinking``) or when their part closes, and a watched call's arguments are read
by a resumable parser (``_partial_json.py``) that never goes back over what it already read.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .._errors import StreamError
from .._wire._jsontext import dumps_compact, is_json_object, json_writer, loads_standard
from .._wire._partial_json import PartialJSON
from ._events import (
    Event,
    FinishEvent,
    FinishReason,
    LogprobsEvent,
    MediaEvent,
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
from ._logprobs import TokenLogprob
from ._messages import (
    LangMessage,
    MediaPart,
    OpaquePart,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from ._result import FunctionCall, RequestUsage

__all__ = ["FOLDS", "Assembler", "new_call_id"]


def new_call_id() -> str:
    """A unique call id for providers that give none (short, of letters, digits and ``_``,
    which every provider's id rules accept)."""
    return "call_" + uuid.uuid4().hex[:24]


@dataclass(slots=True)
class Assembler:
    """Folds the events of one turn into ``message``; ``calls`` maps stream index to part.

    With ``live`` (someone watches the run) a streaming call's ``arguments`` and
    ``raw_arguments`` grow with every fragment; otherwise they are parsed once, when the call
    ends.
    """

    provider: str
    live: bool = False
    message: LangMessage = field(default_factory=lambda: LangMessage("assistant"))
    usage: RequestUsage = field(default_factory=RequestUsage)
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None
    calls: dict[int, ToolCallPart] = field(default_factory=dict)
    started: list[FunctionCall] = field(default_factory=list)
    truncated: bool = False  # the output hit the token limit: the last call may be cut off
    model: str | None = None  # the model the provider says answered
    response_id: str | None = None  # the provider's id of the response (telemetry)
    logprobs: list[TokenLogprob] = field(default_factory=list)  # of the answer's tokens
    _fragments: dict[int, list[str]] = field(default_factory=dict)  # open calls (batch mode)
    _ids: set[str] = field(default_factory=set)  # the ids of ``started``, no two the same
    # Open calls (live mode): each call with the parser of its arguments.
    _parsers: dict[int, tuple[FunctionCall, PartialJSON]] = field(default_factory=dict)
    _open: TextPart | ThinkingPart | None = None
    _chunks: list[str] = field(default_factory=list)
    # Live: the turn's only part, a text part with no chunk waiting, once ``answer`` was read
    # so: the answer is its text, which a result reads here with no call (None otherwise).
    shown: TextPart | None = None

    def add(self, event: Event) -> None:
        """Fold one event into the message."""
        FOLDS[type(event)](self, event)

    def add_all(self, events: list[Event]) -> None:
        """Fold a batch of events (the streaming path: one call per received chunk)."""
        folds = FOLDS
        for event in events:
            folds[type(event)](self, event)

    def _text(self, event: TextDelta) -> None:
        # The one fast path, for the common case (more text for the open text part), taken
        # by every fold, watched or not: what ``_add_text`` would do, without its call.
        part, text = self._open, event.text
        if part.__class__ is TextPart and part.state is None and not event.new_part:
            if self.live:
                if not self._chunks and text.isascii():
                    # Watched, the answer is read after every delta: grow the text at once,
                    # in place as ``_settle`` does (ASCII text has no surrogate half to pair).
                    grown, part.text = part.text, ""
                    grown += text
                    part.text = grown
                    return
                self.shown = None  # the part's text is not all of the answer until joined
            self._chunks.append(text)
            return
        self._add_text(TextPart, text, event.new_part)

    def _thinking(self, event: ThinkingDelta) -> None:
        self._add_text(ThinkingPart, event.text, event.new_part)

    def _opaque(self, event: OpaquePartEvent) -> None:
        self._close_text()
        self.message.parts.append(OpaquePart(event.state, event.kind, event.problem))

    def _media(self, event: MediaEvent) -> None:
        self._close_text()
        self.message.parts.append(MediaPart(event.media, event.state))

    def _end(self, event: ToolCallEnd) -> None:
        self._end_call(event.index, event.arguments)

    def _finish_event(self, event: FinishEvent) -> None:
        self.finish_reason, self.raw_finish_reason = event.reason, event.raw

    def _add_logprobs(self, event: LogprobsEvent) -> None:
        self.logprobs.extend(event.tokens)

    def _set_model(self, event: ModelEvent) -> None:
        self.model, self.response_id = event.model, event.response_id

    @property
    def answer(self) -> str:
        """The text of the turn so far, joined now (O(1) amortized for a single text part)."""
        part = self._open
        if type(part) is TextPart:
            if self._chunks:
                self._settle()
            if len(self.message.parts) == 1:  # the common case, read after every delta
                if self.live:
                    self.shown = part  # until a chunk waits, or another part comes
                return part.text
        return self.message.answer

    @property
    def thinking(self) -> str:
        """The visible reasoning of the turn so far, joined now."""
        if type(self._open) is ThinkingPart:
            self._settle()
        return self.message.thinking

    @property
    def tool_calls(self) -> list[FunctionCall]:
        """The calls of this turn, in the order the model made them."""
        return self.message.tool_calls

    def finish(self) -> LangMessage:
        """End every open call and settle the finish reason; returns the message."""
        self._close_text()
        self.truncated = self.finish_reason == "length"
        for index in list(self._fragments):
            self._end_call(index, None)
        if self.calls:  # every call started is a part of the message
            self.finish_reason = "tool_calls"
        elif self.finish_reason is None or self.finish_reason == "tool_calls":
            self.finish_reason = "stop"
        return self.message

    def _add_text(self, kind: type[TextPart] | type[ThinkingPart], text: str, new: bool) -> None:
        self.shown = None  # a chunk waits (and maybe a new part comes)
        part = self._open
        if part is None or new or type(part) is not kind or part.state is not None:
            self._close_text()
            if not (text or new):
                return
            part = kind("")
            self.message.parts.append(part)
            self._open = part
        self._chunks.append(text)  # joined when read or closed: no quadratic string building

    def _close_text(self) -> None:
        self._settle()
        self._open = None
        self.shown = None  # another part comes next, or the turn ends

    def _settle(self) -> None:
        """Move the chunks waiting for the open part into its text."""
        part, chunks = self._open, self._chunks
        if part is None or not chunks:
            return
        text, part.text = part.text, ""
        # With the part's reference dropped, ``text`` is usually held only here (unless a
        # reader kept it), so the interpreter extends it in place instead of copying it all:
        # reading the answer after every delta stays linear in total.
        added = chunks[0] if len(chunks) == 1 else "".join(chunks)
        text += added
        chunks.clear()
        # Rare: an emoji escaped as two halves in two deltas (ASCII text, known in O(1), has none)
        if not added.isascii() and _SURROGATE.search(added):
            text = text[: -len(added) - 1] + _paired(text[-len(added) - 1 :])
        part.text = text

    def _set_state(self, event: PartStateEvent) -> None:
        part: Part | None
        if event.index is not None:
            part = self.calls.get(event.index)
        else:
            part = self.message.parts[-1] if self.message.parts else None
        if part is None:
            raise StreamError(f"{self.provider}: provider state arrived before any content")
        old = part.state
        if event.merge and old is not None and old.provider == event.state.provider:
            part.state = replace(old, data={**old.data, **event.state.data})
        else:
            part.state = event.state

    def _start_call(self, event: ToolCallStart) -> None:
        # Checked before any tool can run: a call id or name of another type would only
        # fail when the next request is encoded, after the tool had its side effects.
        if event.name.__class__ is not str or not (event.id is None or event.id.__class__ is str):
            raise StreamError(
                f"{self.provider}: a tool call whose id or name is not a string "
                f"(id {event.id!r:.80}, name {event.name!r:.80})"
            )
        if self._open is not None:
            self._close_text()
        existing = self.calls.get(event.index)
        if existing is not None:  # some servers repeat the start; fill only what was missing
            call = existing.call
            if event.id and call.synthetic_id and event.id not in self._ids:
                self._ids.discard(call.id)
                call.id, call.synthetic_id = event.id, False
                self._ids.add(call.id)
            call.name = call.name or event.name
            return
        # A buggy server may reuse an id within a turn; each call must be answered exactly
        # once, so a repeated id is replaced by a made-up one (mapped on the wire as any other).
        fresh = not event.id or event.id in self._ids
        call = FunctionCall(
            id=new_call_id() if fresh else event.id,  # type: ignore[arg-type]
            name=event.name,
            provider=self.provider,
            status="streaming",
            synthetic_id=fresh,
        )
        part = ToolCallPart(call)
        self.started.append(call)
        self._ids.add(call.id)
        self.calls[event.index] = part
        self._fragments[event.index] = []
        if self.live:
            self._parsers[event.index] = (call, PartialJSON())
        self.message.parts.append(part)

    def whole_open_calls(self) -> list[int]:
        """Open calls, but the newest, whose arguments so far are a whole JSON object.

        On a wire that ends every call only with its turn (no event closes a call), such a
        call is complete once a later one has started: a closed JSON object cannot grow.
        """
        *older, _ = self._fragments or (None,)
        if self.live:
            texts = ((i, self.calls[i].call.raw_arguments) for i in older)
        else:
            texts = ((i, "".join(self._fragments[i])) for i in older)
        return [i for i, text in texts if is_json_object(text)]

    def _extend_call(self, event: ToolCallDelta) -> None:
        index, fragment = event.index, event.arguments
        watched = self._parsers.get(index)  # an open call, when live: first, it is the common one
        if watched is not None:
            call, parser = watched
            raw, call.raw_arguments = call.raw_arguments, ""
            raw += fragment  # extended in place when only this call held it (see _settle)
            call.raw_arguments = raw
            partial = parser.feed(fragment)
            if partial.__class__ is dict:
                call.arguments = partial
            return
        fragments = self._fragments.get(index)  # live, every open call has a parser
        if fragments is None:
            if index in self.calls and not fragment.strip():
                return  # white space after a call ended as whole: nothing to add
            state = "already ended" if index in self.calls else "never started"
            raise StreamError(f"{self.provider}: arguments for call #{index}, which {state}")
        fragments.append(fragment)

    def _end_call(self, index: int, arguments: dict[str, Any] | None) -> None:
        part = self.calls.get(index)
        fragments = self._fragments.pop(index, None)
        self._parsers.pop(index, None)
        if part is None or fragments is None:
            return
        call = part.call
        call.status = "pending"
        if arguments is not None:
            call.raw_arguments, call.arguments = _given_arguments(arguments)
            return
        if not self.live:  # live, ``raw_arguments`` grew with every fragment
            call.raw_arguments = "".join(fragments)
        raw = call.raw_arguments
        parsed = _json_object(raw)
        if parsed is None:
            call.arguments = {}  # invalid JSON is left to validation to report
        else:  # known to be a JSON object: replaying the call needs no parse to check it
            call.arguments, call._checked_raw = parsed, raw

    def _set_usage(self, new: UsageEvent) -> None:
        # A later event replaces the counts it reports; a count it leaves out (None) keeps
        # the earlier value, so a closing event with output tokens only keeps the input.
        for count in (
            new.input_tokens,
            new.output_tokens,
            new.cached_input_tokens,
            new.cache_write_tokens,
            new.reasoning_tokens,
        ):
            if count.__class__ is not int and count is not None:
                raise StreamError(
                    f"{self.provider}: a token count that is not an integer: {count!r:.80}"
                )
        old = self.usage
        # Positional, in the order of RequestUsage's fields: keywords cost twice as much.
        self.usage = RequestUsage(
            old.input_tokens if new.input_tokens is None else new.input_tokens,
            old.output_tokens if new.output_tokens is None else new.output_tokens,
            old.cached_input_tokens if new.cached_input_tokens is None else new.cached_input_tokens,
            old.cache_write_tokens if new.cache_write_tokens is None else new.cache_write_tokens,
            old.reasoning_tokens if new.reasoning_tokens is None else new.reasoning_tokens,
        )


# Event type -> the function folding it into an assembler (what ``add`` calls), for loops
# that inline ``add``: one lookup per event on the streaming path. Plain functions, not each
# assembler's bound methods, so an assembler holds no reference to itself and a finished
# turn is freed at once rather than by the cycle collector.
FOLDS: dict[type, Callable[[Assembler, Any], None]] = {
    TextDelta: Assembler._text,
    ThinkingDelta: Assembler._thinking,
    PartStateEvent: Assembler._set_state,
    OpaquePartEvent: Assembler._opaque,
    MediaEvent: Assembler._media,
    ToolCallStart: Assembler._start_call,
    ToolCallDelta: Assembler._extend_call,
    ToolCallEnd: Assembler._end,
    UsageEvent: Assembler._set_usage,
    FinishEvent: Assembler._finish_event,
    ModelEvent: Assembler._set_model,
    LogprobsEvent: Assembler._add_logprobs,
}

_SURROGATE = re.compile("[\ud800-\udfff]")


def _paired(text: str) -> str:
    """``text`` with each high and low surrogate pair made one character (lone ones stay).

    JSON escapes a character outside the BMP as two ``\\uXXXX`` halves; a server that splits
    them over two deltas leaves each half alone in its string, and they meet only here.
    """
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _given_arguments(arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Arguments a decoder parsed itself, as (text, value); ``{}`` when they are not JSON."""
    try:  # writers set up once: json.dumps with options builds an encoder on every call
        return dumps_compact(arguments), arguments
    except ValueError:  # NaN or an infinity read from the wire: kept as text to quote
        return _COMPACT_NAN(arguments), {}
    except RecursionError:
        return "(arguments nested too deeply to show)", {}


# ``json.dumps(separators=(",", ":"), ensure_ascii=False)``, NaN written as json writes it.
_COMPACT_NAN = json_writer(allow_nan=True)


def _json_object(text: str) -> dict[str, Any] | None:
    """The standard JSON object ``text`` holds, else None (blank, invalid, another value)."""
    if not text.strip():
        return None
    try:
        value = loads_standard(text)  # NaN or absurd nesting: invalid, like broken JSON
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
