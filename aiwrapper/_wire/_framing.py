"""Stream framing: raw body bytes in, complete SSE events or NDJSON lines out.

Protocol code without I/O, in the style of httpcore and httpx-sse: each decoder is fed the
body's byte chunks exactly as they arrive (split anywhere, even inside a multi-byte UTF-8
character or between CR and LF) and returns what is complete. Transport (``_http.py``) and the
meaning of each event (``providers/<name>.py``) live elsewhere.

Speed matters here (every streamed token passes through): the decoders work on bytes, find
boundaries with C-level searches, keep an unfinished tail as a list of chunks joined only once
its boundary arrives, decode UTF-8 once per batch of whole events, and normalize line ends
only when a CR is actually present.
"""

from __future__ import annotations

import re
from itertools import repeat

from .._errors import StreamError

__all__ = ["NDJSONDecoder", "SSEDecoder", "SSEEvent"]

SSEEvent = tuple[str | None, str]
"""One dispatched SSE event: its ``event:`` name (None when unnamed) and its data."""

_BOM = b"\xef\xbb\xbf"


class _Framer:
    """Shared state of the decoders: the unfinished tail, and whether the last chunk ended in CR.

    ``max_frame`` caps the unfinished tail (one SSE event or NDJSON line, in bytes): a server
    that never ends its line is a ``StreamError`` once the tail is that long, not unbounded
    memory. None means no cap.
    """

    __slots__ = ("_cr", "_max", "_parts", "_size")

    def __init__(self, max_frame: int | None = None) -> None:
        self._parts: list[bytes] = []
        self._cr = False
        self._max = max_frame
        self._size = 0  # bytes in _parts

    def _hold(self, tail: bytes) -> None:
        """Keep ``tail`` until its frame ends, within ``max_frame``."""
        self._parts.append(tail)
        self._size += len(tail)
        if self._max is not None and self._size > self._max:
            raise StreamError(
                f"a stream frame (SSE event or NDJSON line) is longer than {self._max:,} bytes "
                "(SizeLimits.frame_bytes; pass limits=SizeLimits(frame_bytes=...) to allow more)"
            )

    def _lf_only(self, chunk: bytes) -> bytes:
        """``chunk`` with CRLF and lone CR turned into LF (WHATWG event-stream line ends).

        A CR ends its line at once, even as a chunk's last byte (a stream with lone-CR line
        ends must not wait for the next chunk to dispatch); only an LF right after it, maybe
        in the next chunk, is then dropped as the second half of a CRLF.
        """
        if self._cr:
            if not chunk:
                return chunk
            self._cr = False
            if chunk[0] == 0x0A:
                chunk = chunk[1:]
        if chunk[-1:] == b"\r":
            self._cr = True
        chunk = chunk.replace(b"\r\n", b"\n")
        return chunk.replace(b"\r", b"\n") if b"\r" in chunk else chunk

    def _rest(self) -> bytes:
        """Everything still pending at the end of the body."""
        rest = b"".join(self._parts)
        self._parts.clear()
        self._size = 0
        self._cr = False
        return rest


class SSEDecoder(_Framer):
    """Incremental Server-Sent Events decoder.

    ``feed`` returns every event completed by the chunk as ``(event name or None, data)``,
    the data of several ``data:`` lines joined with ``"\\n"``. Comment lines (``:`` first, e.g.
    OpenRouter's ``: OPENROUTER PROCESSING``), ``id:`` and ``retry:`` are ignored, and an event
    without data lines is not dispatched. ``flush`` dispatches an event left unterminated when
    the body ends.
    """

    __slots__ = ("_bom", "_started")

    def __init__(self, max_frame: int | None = None) -> None:
        super().__init__(max_frame)
        self._started = False
        self._bom = b""  # the first bytes of the body while they may still be a split BOM

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Decode one chunk of the body; return the events it completes."""
        if not self._started:
            chunk = self._start(chunk)
        if self._cr or b"\r" in chunk:
            chunk = self._lf_only(chunk)
        parts = self._parts
        if not parts:
            if chunk[-2:] == b"\n\n":
                # Servers usually flush whole events: nothing to buffer, one decode.
                return _parse_blocks(chunk[:-2].decode("utf-8", "replace"))
            if b"\n\n" not in chunk:
                if chunk:
                    self._hold(chunk)
                return []
            pending = chunk
        elif not chunk:
            return []  # an empty part would hide a blank line straddling its neighbours
        else:
            # The blank line may straddle the previous chunk and this one.
            if b"\n\n" not in chunk and not (chunk[:1] == b"\n" and parts[-1][-1:] == b"\n"):
                self._hold(chunk)
                return []
            parts.append(chunk)
            pending = b"".join(parts)
            parts.clear()
            self._size = 0
        end = pending.rfind(b"\n\n")
        if end + 2 < len(pending):
            self._hold(pending[end + 2 :])
        # Everything before the last blank line is whole events, hence whole UTF-8.
        return _parse_blocks(pending[:end].decode("utf-8", "replace"))

    def flush(self) -> list[SSEEvent]:
        """The body ended: dispatch a pending event that had no final blank line."""
        if not self._parts:  # the body ended with its last event (the common case)
            self._cr = False
            return []
        return _parse_blocks(self._rest().decode("utf-8", "replace"))

    def _start(self, chunk: bytes) -> bytes:
        # The event-stream grammar allows one leading UTF-8 BOM; it is not data. Anywhere
        # else a BOM is an ordinary character (so a field name it precedes is unknown).
        if self._bom:
            chunk = self._bom + chunk
        if len(chunk) < 3 and _BOM.startswith(chunk):
            self._bom = chunk  # maybe a BOM split across chunks: wait for its other bytes
            return b""
        self._started = True
        self._bom = b""
        return chunk[3:] if chunk.startswith(_BOM) else chunk


def _parse_blocks(text: str) -> list[SSEEvent]:
    """The events of LF-separated text made of whole events (blank-line separated).

    The common shapes are cut out with whole-text string operations, which cost a fraction of
    reading each event's lines on its own: every event one ``data:`` line, or an ``event:``
    line and one ``data:`` line, with or without the space after the colons, and comment lines
    (keep-alives) anywhere. Any other text is read block by block.
    """
    events = _common_events(text)
    if events is None and (text[:1] == ":" or "\n:" in text):  # searched only now: ":" is
        text = _without_comments(text)  # everywhere in JSON, so the search is a slow one
        events = _common_events(text)
    if events is not None:
        return events
    return [event for block in text.split("\n\n") if (event := _parse_block(block)) is not None]


def _common_events(text: str) -> list[SSEEvent] | None:
    if text[:5] == "data:":
        return _unnamed_events(text)
    if text[:6] == "event:":
        return _named_events(text)
    return None


_COMMENT = re.compile(r"\n:[^\n]*")  # a comment line, with the LF before it
_BLANKS = re.compile(r"\n\n\n+")  # more than one blank line


def _without_comments(text: str) -> str:
    """``text`` without its comment lines (they mean nothing, wherever they are), and without
    the runs of blank lines and the blank lines at either end they leave."""
    text = _BLANKS.sub("\n\n", _COMMENT.sub("", "\n" + text))
    return text.strip("\n")


def _unnamed_events(text: str) -> list[SSEEvent] | None:
    """The events of text whose every event is one ``data:`` line; else None."""
    if text[:6] == "data: ":
        if "\n" not in text:
            return [(None, text[6:])]  # one event, one data line
        # Then every LF belongs to a "\n\ndata: " separator, which the payloads show by
        # holding none.
        payloads = text.split("\n\ndata: ")
        payloads[0] = payloads[0][6:]
        if "\n" not in "".join(payloads):  # a copy and one C search: less than counting LFs
            return list(zip(repeat(None), payloads))
    payloads = text.split("\n\ndata:")  # some without the space after "data:", say
    payloads[0] = payloads[0][5:]
    if "\n" in "".join(payloads):
        return None
    return [(None, data[1:] if data[:1] == " " else data) for data in payloads]


# An event of the named shape, with the blank line before it: an ``event:`` line, then one
# ``data:`` line, each with or without the space after its colon. Every match starts with
# "\n\nevent:", so a search is one pass over the text, however hostile the text: it never
# restarts inside a line.
_NAMED = re.compile(r"\n\nevent:[ ]?([^\n]*)\ndata:[ ]?([^\n]*)")


def _named_events(text: str) -> list[SSEEvent] | None:
    """The events of text whose every event is in the named shape (``_NAMED``); else None."""
    parts = _NAMED.split("\n\n" + text)  # before, name, data, before, name, data, ..., after
    if any(parts[0::3]):
        return None  # some text is in no named event: another field, several data lines...
    names = parts[1::3]
    if "" in names:
        return None  # an empty name (the default, None): rare, read block by block
    return list(zip(names, parts[2::3], strict=True))


def _parse_block(block: str) -> SSEEvent | None:
    """One event's lines as ``(name, data)``; None when it has no data line."""
    name: str | None = None
    data: list[str] = []
    for line in block.split("\n"):
        if not line or line[0] == ":":  # blank, or a comment / keep-alive
            continue
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value or None  # an empty name means the default ("message")
        # Other fields (id, retry, unknown ones) carry nothing the providers use.
    if not data:
        return None
    return name, "\n".join(data)


class NDJSONDecoder(_Framer):
    """Incremental newline-delimited JSON framing: complete, non-blank lines as text.

    CRLF is tolerated; lines are not parsed here (the provider decoder does that).
    """

    __slots__ = ()

    def feed(self, chunk: bytes) -> list[str]:
        """Decode one chunk of the body; return the lines it completes."""
        if self._cr or b"\r" in chunk:
            chunk = self._lf_only(chunk)
        parts = self._parts
        if b"\n" not in chunk:
            if chunk:
                self._hold(chunk)
            return []
        if parts:
            parts.append(chunk)
            chunk = b"".join(parts)
            parts.clear()
            self._size = 0
        end = chunk.rfind(b"\n")
        if end + 1 < len(chunk):
            self._hold(chunk[end + 1 :])
        lines = chunk[:end].decode("utf-8", "replace").split("\n")
        return [line for line in lines if line and not line.isspace()]

    def flush(self) -> list[str]:
        """The body ended: return a last line that had no final newline."""
        rest = self._rest().decode("utf-8", "replace").strip()
        return [rest] if rest else []
