"""``Envelope``: reading JSON texts that repeat one envelope around one changing value.

A stream sends thousands of events that differ in a single value:
``{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"..."}}``, or a
chunk whose id, model and fingerprint repeat around each ``delta``. Once one
such text was parsed whole, an ``Envelope`` learns where that value sits; a later text that has
the same bytes before it and the same bytes after it is read by scanning the value alone.

What it reads is exactly what parsing the whole text gives: JSON has no context, so the same
bytes around a complete value parse to the same structure with that value in place. Learning
checks the place by parsing the text again with a probe string there and finding the probe
at the path asked for (a key repeated later, which would win, fails that check). A text that
differs anywhere outside the value is not read here; the caller parses it in full.

A padding field that changes in every text (random filler, or a timestamp) may come before or
after the value: named as ``padding``, its value is scanned as a whole JSON value too, and
not returned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._jsonscan import loads, scan

__all__ = ["MISSING", "Envelope"]

MISSING: Any = object()  # what ``read`` returns for a text outside the envelope

_PROBE_TEXT = '"\\u0000aiwrapper-envelope-probe"'  # a JSON string no server sends
_PROBE = loads(_PROBE_TEXT)
_WHITESPACE = " \t\n\r"
_MOST_WAIT = 1024  # misses between two attempts to learn, at the most


class Envelope:
    """Where one value sits in a repeated JSON text; see the module's docstring.

    Args:
        key: The object key the value is found under (searched for in the text).
        find: Picks that value from a parsed text; raises ``LookupError`` or ``TypeError``
            where the text has none.
        padding: The key and the finder of a padding value that may come after it.
    """

    __slots__ = (
        "_find",
        "_head",
        "_hits",
        "_key",
        "_middle",
        "_padding",
        "_padding_first",
        "_tail",
        "_wait",
        "_waited",
        "due",
    )

    def __init__(
        self,
        key: str,
        find: Callable[[Any], Any],
        padding: tuple[str, Callable[[Any], Any]] | None = None,
    ) -> None:
        self._key = f'"{key}"'
        self._find = find
        self._padding = None if padding is None else (f'"{padding[0]}"', padding[1])
        self._head: str | None = None
        self._middle: str | None = None  # between the value and the padding, when there is one
        self._padding_first = False  # the padding comes before the value
        self._tail = ""
        self._hits = 0  # texts read since the envelope was learned
        self._wait = 1  # misses left before learning again
        self._waited = 0  # the last wait (0: never learned), doubled while learning brings no hit
        self.due = True  # a miss says it is time to learn from the next whole parse

    def read(self, text: str) -> Any:
        """The value ``text`` holds in the learned envelope, or ``MISSING``."""
        head, tail = self._head, self._tail
        if head is not None and text.endswith(tail) and text.startswith(head):
            try:
                if self._middle is None:
                    value, end = scan(text, len(head))
                else:
                    value, end = self._read_padded(text, len(head))
            except (StopIteration, ValueError):
                end = -1
            if end == len(text) - len(tail):
                self._hits += 1
                return value
        self._wait -= 1
        self.due = self._wait <= 0
        return MISSING

    def _read_padded(self, text: str, start: int) -> tuple[Any, int]:
        """The value and the padding from ``start`` on, in their order: (value, end) or
        (``MISSING``, -1) when the text between them differs."""
        middle = self._middle
        assert middle is not None
        first, end = scan(text, start)
        if not text.startswith(middle, end):
            return MISSING, -1
        second, end = scan(text, end + len(middle))
        return (second if self._padding_first else first), end

    def learn(self, text: str, parsed: Any) -> None:
        """Take ``text`` (parsed as ``parsed``) as the envelope, when its value can be placed.

        Called when ``due``. While learned envelopes bring no hit (every text differs, say by
        a field this envelope does not know), each next attempt waits twice as many misses.
        """
        waited = self._waited
        self._waited = 1 if self._hits or not waited else min(2 * waited, _MOST_WAIT)
        self._wait, self._hits, self.due = self._waited, 0, False
        self._head = self._middle = None
        value = _place(text, parsed, self._key, self._find, 0)
        if value is None:
            return
        start, end = value
        self._head, self._tail = text[:start], text[end:]
        if self._padding is not None:
            self._place_padding(text, parsed, start, end)

    def _place_padding(self, text: str, parsed: Any, start: int, end: int) -> None:
        """Learn where the padding is, before or after the value at ``start:end``."""
        assert self._padding is not None
        padding = _place(text, parsed, *self._padding, 0)
        if padding is None:
            return
        first, last = padding
        if last <= start:
            self._head, self._middle = text[:first], text[last:start]
            self._padding_first = True
        elif first >= end:
            self._middle, self._tail = text[end:first], text[last:]
            self._padding_first = False


def _place(
    text: str, parsed: Any, key: str, find: Callable[[Any], Any], after: int
) -> tuple[int, int] | None:
    """Where in ``text`` (from ``after`` on) the value ``find`` picks is written, if anywhere.

    Each ``key`` in the text is tried: its value is the one when the text, that value
    replaced by a probe, parses to the probe at ``find``'s path.
    """
    try:
        if _is_probe(find(parsed)):
            return None  # the probe could not be told from this value
    except (LookupError, TypeError):
        return None
    start = text.find(key, after)
    while start >= 0:
        colon = _skip(text, start + len(key))
        begin = _skip(text, colon + 1)
        if text[colon : colon + 1] == ":":  # else the key's text was a string value
            try:
                _, end = scan(text, begin)
                if _is_probe(find(loads(text[:begin] + _PROBE_TEXT + text[end:]))):
                    return begin, end
            except (StopIteration, ValueError, LookupError, TypeError):
                pass
        start = text.find(key, start + 1)
    return None


def _is_probe(value: Any) -> bool:
    return isinstance(value, str) and value == _PROBE


def _skip(text: str, index: int) -> int:
    """The index of the first character at or after ``index`` that is not JSON whitespace."""
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index
