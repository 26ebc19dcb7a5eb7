"""Model quirks in Ollama's ``content`` field: ``<think>`` tags and tool calls written as text.

Some models write what the server should have parsed into the answer text: reasoning between
``<think>`` and ``</think>`` (DeepSeek-R1 on servers without its parser), or tool calls as JSON
(``{"name": ..., "arguments": {...}}``, in code fences or Qwen/Hermes ``<tool_call>`` tags).
This module recognizes both, incrementally where the stream needs it; ``_decode.py`` decides
when to apply them and turns the results into events. It also keeps the message fields the SDK
does not read (``UnreadFields``), so they go back to Ollama with the turn and nowhere else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any, Literal

from ..._conversation._events import Event, OpaquePartEvent
from ..._conversation._messages import JSONValue, LangMessage, OpaquePart, ProviderState

__all__ = ["TextGate", "ThinkSplitter", "UnreadFields", "calls_from_text", "unread_fields"]

# The message fields the decoder turns into events; any other one is kept whole.
_READ = frozenset({"role", "content", "thinking", "tool_calls"})

_OPEN, _CLOSE = "<think>", "</think>"


class ThinkSplitter:
    """Splits ``<think>...</think>`` out of content; a tag may be cut across lines.

    Some models (DeepSeek-R1 on servers without a thinking parser) write their reasoning into
    ``content`` between these tags. Text that could be the start of a tag is held back until
    the next chunk decides; whitespace right after a tag is dropped, as Ollama's parsers do.
    """

    def __init__(self) -> None:
        self.thinking = False
        self.pending = ""
        self.trim = False

    def push(self, chunk: str) -> list[tuple[bool, str]]:
        """Split one chunk of content into ``(is_thinking, text)`` segments ready to emit."""
        if self.is_plain(chunk):  # most chunks: no tag, nothing held back
            return [(self.thinking, chunk)] if chunk else []
        out: list[tuple[bool, str]] = []
        self.pending += chunk
        while (at := self.pending.find(self._tag())) >= 0:
            self._emit(out, self.pending[:at])
            self.pending = self.pending[at + len(self._tag()) :]
            self.thinking, self.trim = not self.thinking, True
        keep = _partial_suffix(self.pending, self._tag())
        self._emit(out, self.pending[: len(self.pending) - keep])
        self.pending = self.pending[len(self.pending) - keep :]
        return out

    def is_plain(self, chunk: str) -> bool:
        """Whether ``chunk`` passes through whole, as one segment in the current mode.

        True when nothing is held back, no whitespace is due to be dropped and the chunk has
        no ``<``: then it can neither hold a tag nor begin one (both tags start with ``<``).
        This is the common case, so callers skip ``push``'s scanning and list building.
        """
        return self.idle() and "<" not in chunk

    def idle(self) -> bool:
        """Whether nothing is held back and no whitespace is due to be dropped."""
        return not self.pending and not self.trim

    def flush(self) -> list[tuple[bool, str]]:
        """The content ended: release what was held back (an unclosed tag stays thinking)."""
        out: list[tuple[bool, str]] = []
        self._emit(out, self.pending)
        self.pending = ""
        return out

    def _tag(self) -> str:
        return _CLOSE if self.thinking else _OPEN

    def _emit(self, out: list[tuple[bool, str]], text: str) -> None:
        if self.trim:
            text = text.lstrip()
            self.trim = not text
        if text:
            out.append((self.thinking, text))


def _partial_suffix(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that could begin ``tag``."""
    # Both tags hold a single "<", their first character, so only an end that starts at the
    # last "<" (within a tag's length of the end) can match: one search, not a loop.
    at = text.rfind("<", max(len(text) - len(tag) + 1, 0))
    return len(text) - at if at >= 0 and tag.startswith(text[at:]) else 0


_CALL_MARKERS = ("{", "[", "```", "<tool_call>")


class TextGate:
    """Passes answer text through, or holds it when it may be a tool call written as JSON.

    It decides on the first characters of the answer: text opening with ``{``, ``[``, a code
    fence or ``<tool_call>`` is held until the turn ends (``take``), anything else streams.
    """

    def __init__(self, *, active: bool) -> None:
        self.state: Literal["undecided", "hold", "pass"] = "undecided" if active else "pass"
        self.held = ""

    def push(self, text: str) -> str:
        """The text to emit now ("" while holding)."""
        if self.state == "pass":
            return text
        self.held += text
        if self.state == "undecided":
            self.state = _classify(self.held)
            if self.state == "pass":
                return self.take()[0]
        return ""

    def take(self) -> tuple[str, bool]:
        """The held text, and whether it looked like a call."""
        held, self.held = self.held, ""
        return held, self.state == "hold"


def _classify(text: str) -> Literal["undecided", "hold", "pass"]:
    head = text.lstrip()
    if any(head.startswith(marker) for marker in _CALL_MARKERS):
        return "hold"
    if not head or any(marker.startswith(head) for marker in _CALL_MARKERS):
        return "undecided"
    return "pass"


_FENCE = re.compile(r"```[\w-]*\s*(.*?)\s*```", re.DOTALL)
_CALL_KEYS = frozenset({"name", "arguments", "parameters", "type"})


def calls_from_text(
    text: str, names: Collection[str]
) -> list[tuple[str, dict[str, JSONValue]]] | None:
    """The calls a whole answer spells out as JSON, or None when it is anything else.

    Accepted: ``{"name": ..., "arguments"|"parameters": {...}}`` (optionally with
    ``"type": "function"``, or wrapped OpenAI-style in ``{"function": {...}}``), a list or a
    sequence of those, inside a ```json fence or ``<tool_call>`` tags. All or nothing: one
    object that is not a call to a declared tool keeps the whole answer as text.
    """
    body = text.strip()
    fence = _FENCE.fullmatch(body)
    objects: list[Any] = []
    for chunk in _tagged_chunks(fence.group(1) if fence else body):
        values = _json_values(chunk)
        if values is None:
            return None
        objects += values
    calls = [_as_call(value, names) for value in objects]
    if not calls or any(call is None for call in calls):
        return None
    return [call for call in calls if call is not None]


def _tagged_chunks(body: str) -> list[str]:
    if not body.startswith("<tool_call>"):
        return [body]
    # Qwen/Hermes style, one call per tag; models often leave out the last closing tag.
    pieces = body.split("<tool_call>")[1:]
    return [piece.strip().removesuffix("</tool_call>") for piece in pieces]


def _json_values(text: str) -> list[Any] | None:
    decoder, values, rest = json.JSONDecoder(), list[Any](), text.strip()
    while rest:
        try:
            value, end = decoder.raw_decode(rest)
        except ValueError:
            return None
        values += value if isinstance(value, list) else [value]
        rest = rest[end:].lstrip(" \t\r\n,;")  # Llama writes several calls separated by ";"
    return values


def _as_call(value: Any, names: Collection[str]) -> tuple[str, dict[str, JSONValue]] | None:
    wrapped = isinstance(value, dict) and isinstance(value.get("function"), dict)
    if wrapped and set(value) <= {"function", "type", "id"}:
        value = value["function"]
    if not isinstance(value, dict) or not set(value) <= _CALL_KEYS:
        return None
    name, kind = value.get("name"), value.get("type", "function")
    if not isinstance(name, str) or name not in names or kind != "function":
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if arguments is None:  # no arguments, or ``null`` for a function that takes none
        arguments = {}
    if isinstance(arguments, str):  # some models double-encode
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return None
    return (name, arguments) if isinstance(arguments, dict) else None


class UnreadFields:
    """The fields of the streamed message the SDK does not read, gathered over the turn.

    One message arrives over many lines: a string field is taken to come in pieces (joined),
    a list field in items (extended), and any other value replaces the one before. Empty
    values are what every line repeats, so they are not kept.
    """

    __slots__ = ("fields",)

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}

    def add(self, message: Mapping[str, Any]) -> None:
        """Keep the unread fields of one line's message."""
        if _READ.issuperset(message):  # nearly every line: nothing to keep
            return
        for key, value in message.items():
            if key in _READ or value is None or value == "" or value == []:
                continue
            old = self.fields.get(key)
            same = isinstance(old, (str, list)) and type(old) is type(value)
            self.fields[key] = old + value if same else value

    def events(self, provider: str) -> list[Event]:
        """The kept fields as one opaque part (at the end of the turn), if there are any."""
        if not self.fields:
            return []
        return [OpaquePartEvent(ProviderState(provider, {"message": self.fields}))]


def unread_fields(message: LangMessage, provider: str) -> dict[str, Any]:
    """The fields ``UnreadFields`` kept on ``message``, to be sent back to the same server."""
    out: dict[str, Any] = {}
    for part in message.parts:
        if isinstance(part, OpaquePart) and part.state.provider == provider:
            fields = part.state.data.get("message")
            out.update(fields if isinstance(fields, dict) else {})
    return out
