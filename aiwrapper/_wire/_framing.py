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
import sys
from itertools import compress, count, repeat
from operator import contains

from .._errors import StreamError

__all__ = ["NDJSONDecoder", "SSEDecoder", "SSEEvent"]

SSEEvent = tuple[str | None, str]
"""One dispatched SSE event: its ``event:`` name (None when unnamed) and its data."""

_BOM = b"\xef\xbb\xbf"
_LONE_CR = re.compile(rb"\r[^\n]")  # a CR that is no CRLF's first half (but a chunk's last)


class _Framer:
    """Shared state of the decoders: the unfinished tail, and whether the last chunk ended in CR.

    ``max_frame`` caps each frame (one SSE event or NDJSON line, in bytes), whole or still
    arriving: a server that never ends its line is a ``StreamError`` once the tail is that
    long, not unbounded memory. None means no cap.
    """

    __slots__ = ("_cr", "_limit", "_parts", "_size")

    def __init__(self, max_frame: int | None = None) -> None:
        self._parts: list[bytes] = []
        self._cr = False
        self._limit = sys.maxsize if max_frame is None else max_frame
        self._size = 0  # bytes in _parts

    def _hold(self, tail: bytes) -> None:
        """Keep ``tail`` until its frame ends, within ``max_frame``."""
        self._parts.append(tail)
        self._size += len(tail)
        if self._size > self._limit:
            raise self._too_long()

    def _check(self, frames: bytes, end: bytes) -> None:
        """Refuse whole frames (each followed by ``end`` but the last) longer than
        ``max_frame``, as ``_hold`` refuses a tail; called when they are longer together, so
        a server that sends one huge line in one chunk is refused before it is decoded."""
        if max(map(len, frames.split(end))) > self._limit:
            raise self._too_long()

    def _too_long(self) -> StreamError:
        return StreamError(
            f"a stream frame (SSE event or NDJSON line) is longer than {self._limit:,} bytes "
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
        if _LONE_CR.search(chunk) is None:
            # Every CR but a last one comes before an LF (CRLF line ends, the common case):
            # dropping them all is one pass, several times faster than replacing CRLF pairs.
            return chunk.replace(b"\r", b"") + b"\n" if self._cr else chunk.replace(b"\r", b"")
        chunk = chunk.replace(b"\r\n", b"\n")
        return chunk.replace(b"\r", b"\n")

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

    __slots__ = ("_bom", "_comments", "_started")

    def __init__(self, max_frame: int | None = None) -> None:
        super().__init__(max_frame)
        # Whether comments came between events, and data lines without the space after the
        # colon: read faster once known (``_parse_blocks``).
        self._comments = [False, False]
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
                if len(chunk) > self._limit:
                    self._check(chunk, b"\n\n")
                return _parse_blocks(chunk[:-2].decode("utf-8", "replace"), self._comments)
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
        if end > self._limit:
            self._check(pending[:end], b"\n\n")
        # Everything before the last blank line is whole events, hence whole UTF-8.
        return _parse_blocks(pending[:end].decode("utf-8", "replace"), self._comments)

    def flush(self) -> list[SSEEvent]:
        """The body ended: dispatch a pending event that had no final blank line."""
        if not self._parts:  # the body ended with its last event (the common case)
            self._cr = False
            return []
        return _parse_blocks(self._rest().decode("utf-8", "replace"), self._comments)

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


def _parse_blocks(text: str, seen: list[bool]) -> list[SSEEvent]:
    """The events of LF-separated text made of whole events (blank-line separated).

    The common shapes are cut out with whole-text string operations, which cost a fraction of
    reading each line on its own: every event one ``data:`` line, or an ``event:`` line and
    one ``data:`` line, with or without the space after the colons, maybe with comments (a
    keep-alive) after it. Comment blocks between one-line events are skipped by the split
    itself; before named events they are dropped first, once the stream was seen to send them
    (``seen``: what the decoder learned of its stream's shape, kept up to date here). Any
    other text (other fields, several data lines...) is read line by line.
    """
    if text[:1] == ":":  # comment lines first: dropped, with the blank lines after them
        text = text[_LEADING_COMMENTS.match(text).end() :]  # type: ignore[union-attr]
    if text[:5] == "data:":
        events = _unnamed_events(text, seen)
    elif text[:6] == "event:":
        events = _named_events(_without_comments(text) if seen[0] else text)
    else:
        events = None
    if events is None:  # comments dropped first by one C pass: cheaper than line by line
        return _events_by_line(_without_comments(text) if seen[0] else text)
    return events


def _without_comments(text: str) -> str:
    """The text without its comment blocks: removing a comment and the blank line before it
    changes nothing else when a blank line (or the end of the text, which ends at one)
    follows it."""
    return _COMMENT_BLOCKS.sub("", "\n\n" + text)[2:]


# Comment lines after a blank line and before another one (or the end of the text).
_COMMENT_BLOCKS = re.compile(r"\n\n:[^\n]*(?:\n:[^\n]*)*(?=\n\n|\Z)")

# What may follow an event's data line in the common shapes: blank lines and comments only.
_NOTHING = re.compile(r"(?:\n(?::[^\n]*)?)*")
# A line that is neither blank nor a comment: what ``_NOTHING`` refuses after a data line,
# found by a forward search that never backtracks (megabytes of keep-alives stay cheap).
_OTHER_LINE = re.compile(r"\n[^:\n]")


# Comment lines, and the blank lines after them, at the start of a text: no event's part.
_LEADING_COMMENTS = re.compile(r"(?::[^\n]*\n+)*")

# Between two one-line events: "data:" after a blank line, with or without its space, maybe
# after one one-line comment block (a keep-alive), so that a stream with keep-alives is split
# in the one pass a stream without them takes. (A pattern that begins with a literal is
# searched as fast as ``str.split`` searches; one block at the most keeps each try short.)
_DATA = re.compile(r"\n\n(?::[^\n]*\n\n)?data: ?")


def _unnamed_events(text: str, seen: list[bool]) -> list[SSEEvent] | None:
    """The events of text whose every event is one ``data:`` line (maybe with comments after
    it); else None. ``seen`` says, and is told, whether the stream sent comment blocks between
    events, and data lines without the space after the colon."""
    if "\n" not in text:
        return [(None, text[6:] if text[5:6] == " " else text[5:])]  # one event, one line
    if text[:6] == "data: " and not (seen[0] or seen[1]):  # a space after every colon
        payloads = text.split("\n\ndata: ")  # a plain split
        payloads[0] = payloads[0][6:]
        if "\n" not in "".join(payloads):
            return list(zip(repeat(None), payloads))
        seen[1] = "\n\ndata:" in "".join(payloads)  # one without it: the pattern from now on
        seen[0] = "\n\n:" in text  # comments between events: the pattern skips them
    payloads = _DATA.split(text)
    first = payloads[0]
    payloads[0] = first[6:] if first[5:6] == " " else first[5:]
    # Every LF belongs to a separator when the payloads hold none: a copy and one C search
    # cost less than counting LFs.
    if "\n" in "".join(payloads):
        if not seen[0] and "\n\n:" in text:
            seen[0] = True  # comments between events: named events drop them first
        return _unnamed_with_comments(payloads)
    return list(zip(repeat(None), payloads))


def _unnamed_with_comments(payloads: list[str]) -> list[SSEEvent] | None:
    """The events of these payloads when only comments and blank lines follow their data
    lines (keep-alives between events); else None."""
    # Only the payloads with an LF need a look (those a comment follows, or a line of
    # another kind): found by C-level iteration, not a Python loop over every payload.
    for i in compress(count(), map(contains, payloads, repeat("\n"))):
        data = payloads[i]
        end = data.index("\n")
        if _OTHER_LINE.search(data, end) is not None:
            return None  # another field, another data line...
        payloads[i] = data[:end]
    return list(zip(repeat(None), payloads))


# An event of the named shape, with the blank line before it: an ``event:`` line, then one
# ``data:`` line, each with or without the space after its colon. Every match starts with
# "\n\nevent:", so a search is one pass over the text, however hostile the text: it never
# restarts inside a line.
_NAMED = re.compile(r"\n\nevent:[ ]?([^\n]*)\ndata:[ ]?([^\n]*)")


def _named_events(text: str) -> list[SSEEvent] | None:
    """The events of text whose every event is in the named shape (``_NAMED``), maybe with
    comments between them; else None."""
    parts = _NAMED.split("\n\n" + text)  # before, name, data, before, name, data, ..., after
    between = parts[0::3]
    if any(between) and not all(map(_NOTHING.fullmatch, filter(None, between))):
        return None  # some text is in no named event: another field, several data lines...
    names = parts[1::3]
    if "" in names:
        return None  # an empty name (the default, None): rare, read line by line
    return list(zip(names, parts[2::3], strict=True))


def _events_by_line(text: str) -> list[SSEEvent]:
    """The events of the text, read line by line as the event-stream rules say.

    A blank line dispatches the event its lines made (when they held data); comment lines
    (``:`` first) are ignored, as are ``id:``, ``retry:`` and unknown fields.
    """
    events: list[SSEEvent] = []
    name: str | None = None
    data: str | None = None  # joined as it grows: nearly every event has one data line
    for line in text.split("\n"):
        if not line:
            if data is not None:
                events.append((name, data))
            name = data = None
        elif line[:5] == "data:":
            value = line[6:] if line[5:6] == " " else line[5:]
            data = value if data is None else f"{data}\n{value}"
        elif line[0] != ":":  # a comment (a keep-alive) is no field
            field, _, value = line.partition(":")
            value = value[1:] if value[:1] == " " else value
            if field == "event":
                name = value or None  # an empty name means the default ("message")
            elif field == "data":  # "data" without a colon: an empty data line
                data = value if data is None else f"{data}\n{value}"
    if data is not None:
        events.append((name, data))
    return events


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
        if end > self._limit:
            self._check(chunk[:end], b"\n")
        lines = chunk[:end].decode("utf-8", "replace").split("\n")
        return [line for line in lines if line and not line.isspace()]

    def flush(self) -> list[str]:
        """The body ended: return a last line that had no final newline."""
        rest = self._rest().decode("utf-8", "replace").strip()
        return [rest] if rest else []
