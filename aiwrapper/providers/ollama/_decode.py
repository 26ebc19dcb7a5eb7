"""Ollama's NDJSON stream (and whole ``stream: false`` bodies) decoded into neutral events.

This module owns the answer side of the native wire: whole tool calls, the final ``done`` line
with metrics, ``{"error"}`` lines, thinking written as ``<think>`` tags into the content, and
calls written as JSON text (``_content.py`` holds those two content readers), and the token
log probabilities of the answer text when the request asked for them (``_logprobs.py``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Literal

from ... import _errors as errors
from ..._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from ..._conversation._logprobs import TokenLogprob
from ..._wire import _jsonscan as jsonscan
from ..._wire._jsonenvelope import MISSING, Envelope
from .._base import logprobs_after_text
from ._content import TextGate, ThinkSplitter, UnreadFields, calls_from_text
from ._defaults import NAME
from ._errors import stream_error
from ._logprobs import decode_logprobs

__all__ = ["OllamaDecoder"]

_loads = jsonscan.loads
_scan_object = jsonscan.scan_object


def _content_of(line: Any) -> Any:
    return line["message"]["content"]


def _created_at(line: Any) -> Any:
    return line["created_at"]


class OllamaDecoder:
    """Turns the NDJSON lines of one ``/api/chat`` response into neutral events.

    Args:
        tool_names: The tools declared in the request. When given, an answer whose whole
            text is a JSON tool call naming one of them becomes a call; such text (starting
            with ``{``, ``[``, a code fence or ``<tool_call>``) is held back until the turn
            ends, and released as text if it is not a call.
        top_logprobs: None unless the request asked for log probabilities; then how many
            alternatives to keep per token (``LogprobsEvent`` after the answer text).
    """

    def __init__(self, tool_names: Collection[str] = (), top_logprobs: int | None = None) -> None:
        self._tool_names = frozenset(tool_names)
        self._top = top_logprobs
        self._pending: list[TokenLogprob] = []  # answer tokens whose text has not gone out
        self._think = ThinkSplitter()
        self._text = TextGate(active=bool(self._tool_names))
        self._calls = 0
        self._unread = UnreadFields()
        self._done = False
        self._plain = self._plain_delta()
        # Each line of text repeats the last but for its content and its timestamp.
        self._envelope = Envelope("content", _content_of, padding=[("created_at", _created_at)])

    def feed(self, event: str | None, data: str) -> list[Event]:
        """Decode one NDJSON line (``event`` is unused: NDJSON has no event names)."""
        if self._done:
            return []  # nothing follows ``done`` on this wire; ignore stray lines
        try:
            line = _loads(data)
        except ValueError as exc:
            if not data.strip():  # checked only here: framing already drops blank lines
                return []
            raise errors.StreamError(
                f"Ollama sent a line that is not JSON: {data[:200]!r}"
            ) from exc
        return self.feed_object(line)

    def feed_lines(self, lines: list[str], into: list[Event]) -> None:
        """Decode a chunk's NDJSON lines into ``into``, as ``feed`` would one at a time.

        Almost every line is one token of answer text in an envelope repeated byte for byte
        but for its ``created_at`` (``_jsonenvelope.py``): read right here, the content alone
        scanned, with no call in between (the stream benchmarks measure this loop). Any other
        line goes to ``feed``; nothing here has changed state before that.
        """
        if self._top is not None:  # asked for logprobs: every line carries its own
            for data in lines:
                into += self.feed(None, data)
            return
        envelope = self._envelope
        reading = envelope.tries(len(lines))
        for data in lines:
            plain, content = self._plain, None
            if plain is not None and not self._done:
                content = envelope.read(data) if reading else MISSING
                if content is MISSING:
                    # Parsed whole: its content is read when the line holds only text (no
                    # thinking, no calls, not the last line, no error); such a line teaches
                    # the envelope when it is due.
                    line: Any = _scan_object(data)  # None: no object (feed says what)
                    content = None
                    try:  # no type test on the way: anything but the plain shape raises
                        message = line["message"]
                        size = len(message) if message.__class__ is dict else 0
                        if size == 1 or (size == 2 and "role" in message):
                            content = message["content"]
                    except (LookupError, TypeError):
                        pass
                    if content is not None:
                        if line.get("done") or line.get("error") is not None:
                            content = None
                        elif envelope.due:
                            envelope.learn(data, line)
                    reading = not envelope.cold  # learned, or gone cold, just now
            # Both think tags start with "<": content without one cannot hold or begin one.
            if content.__class__ is str and "<" not in content:
                if content:
                    into.append(plain(content))  # type: ignore[misc]
                continue
            into += self.feed(None, data)

    def feed_object(self, line: Any) -> list[Event]:
        """Decode one already-parsed line (or a whole non-streamed body)."""
        if not isinstance(line, dict):
            raise errors.StreamError(f"Ollama sent a line that is not an object: {line!r}")
        # An error can come as a line after the 200 status; ``"error": null`` is no error.
        if "error" in line and line["error"] is not None:
            raise stream_error(line)
        message = line.get("message")
        try:
            events = self._message(message or {})
            if self._top is not None and "logprobs" in line:
                self._line_logprobs(line["logprobs"], events)
            if line.get("done"):
                events += self._finish(line)
        except (KeyError, TypeError, AttributeError) as exc:
            raise errors.StreamError(f"Ollama sent a line that cannot be read: {line!r}") from exc
        self._plain = self._plain_delta()  # only this path moves the gate and the splitter
        if self._pending and logprobs_after_text(events, self._pending.copy()):
            self._pending.clear()
        return events

    def _line_logprobs(self, value: Any, events: list[Event]) -> None:
        """Keep a line's tokens when they are answer text's, until that text goes out.

        The tokens come per line, thinking ones too (a line of ``thinking``, or content
        inside ``<think>`` tags): those have no answer text to describe and are dropped. A
        line with answer text gives all its tokens to it (nothing tells a thought's tokens
        apart among them). The tokens of answer text held back (a possible call written as
        text, a tag split over lines) wait for it, and are dropped if it was calls.
        """
        tokens = decode_logprobs(value, self._top or 0)
        kinds = {event.__class__ for event in events}
        # Without text out, only answer text held back (the gate's, or a possible tag's
        # start) has tokens to keep: a line of think tags alone describes no answer.
        held = bool(self._text.held or self._think.pending) and not self._think.thinking
        if TextDelta in kinds or (held and ThinkingDelta not in kinds):
            self._pending += tokens

    def _plain_delta(self) -> type[TextDelta] | type[ThinkingDelta] | None:
        """What plain content (no ``<``) becomes now, or None while text is held back.

        Decided once per line of the general path instead of on every token.
        """
        if self._text.state != "pass" or not self._think.idle():
            return None
        return ThinkingDelta if self._think.thinking else TextDelta

    def close(self) -> list[Event]:
        """The body ended; raise ``StreamError`` unless the ``done`` line arrived."""
        if not self._done:
            raise errors.StreamError("the Ollama stream ended before its final 'done' line")
        return []

    def _message(self, message: Mapping[str, Any]) -> list[Event]:
        events: list[Event] = []
        if message.get("thinking"):
            events.append(ThinkingDelta(str(message["thinking"])))
        if message.get("content"):
            for is_thinking, text in self._think.push(str(message["content"])):
                events += self._segment(is_thinking, text)
        for call in message.get("tool_calls") or ():
            events += self._native_call(call)
        self._unread.add(message)
        return events

    def _segment(self, is_thinking: bool, text: str) -> list[Event]:
        if is_thinking:
            return [ThinkingDelta(text)]
        now = self._text.push(text)
        return [TextDelta(now)] if now else []

    def _native_call(self, call: Mapping[str, Any]) -> list[Event]:
        # Calls arrive whole, one or more per line, and older servers give no id: index
        # them ourselves across the turn.
        function = call["function"]
        index = self._next_index()
        # The name as sent: one of another type is a StreamError (the assembler checks it)
        # before any call of the turn runs, never a name made up by str().
        start = ToolCallStart(index, call.get("id") or None, function["name"])
        arguments = function.get("arguments")
        if arguments is None or isinstance(arguments, dict):
            return [start, ToolCallEnd(index, arguments or {})]
        if isinstance(arguments, str):  # not this wire's shape, but let validation judge it
            return [start, ToolCallDelta(index, arguments), ToolCallEnd(index)]
        raise errors.StreamError(
            f"Ollama sent tool call arguments that are not an object: {call!r}"
        )

    def _next_index(self) -> int:
        self._calls += 1
        return self._calls - 1

    def _finish(self, line: Mapping[str, Any]) -> list[Event]:
        self._done = True
        events: list[Event] = []
        for is_thinking, text in self._think.flush():
            events += self._segment(is_thinking, text)
        events += self._release_text() + self._unread.events(NAME)
        # ``*_count`` tokens and ``*_duration`` nanoseconds of the final line
        metrics = {k: v for k, v in line.items() if k.endswith(("_count", "_duration"))}
        events.append(
            UsageEvent(line.get("prompt_eval_count"), line.get("eval_count"), raw=metrics)
        )
        raw_reason = line.get("done_reason")
        # ``done_reason`` says "stop" even when the model called tools;
        # "length" is kept with calls, so the cut-off is not lost.
        reason: Literal["tool_calls", "length", "stop"] = (
            "length" if raw_reason == "length" else "tool_calls" if self._calls else "stop"
        )
        if line.get("model"):  # every line names it; read once, from the last
            events.append(ModelEvent(str(line["model"])))
        events.append(FinishEvent(reason, raw_reason))
        return events

    def _release_text(self) -> list[Event]:
        held, suspect = self._text.take()
        if not held:
            return []
        calls = calls_from_text(held, self._tool_names) if suspect and not self._calls else None
        if calls is None:
            return [TextDelta(held)]
        self._pending.clear()  # the text was calls: its tokens describe no answer text
        events: list[Event] = []
        for name, arguments in calls:
            index = self._next_index()
            events += [ToolCallStart(index, None, name), ToolCallEnd(index, arguments)]
        return events
