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

Padding fields that change in every text (random filler, a timestamp, a sequence number) may
sit before or after the value: named as ``padding``, each one's value is scanned as a whole
JSON value too, and not returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from ._jsonscan import loads, scan

__all__ = ["MISSING", "Envelope"]

MISSING: Any = object()  # what ``read`` returns for a text outside the envelope

_PROBE_TEXT = '"\\u0000aiwrapper-envelope-probe"'  # a JSON string no server sends
_PROBE = loads(_PROBE_TEXT)
_WHITESPACE = " \t\n\r"
_MOST_WAIT = 1024  # misses in a row between two attempts to learn, at the most
# Texts read whole before the first attempt: learning costs about three parses and each text
# read from the envelope saves most of one, so a stream shorter than this never pays for it.
_FIRST_WAIT = 16
# Texts an envelope must have read, and at least as many as it missed, to have paid for its
# learning: after such a one, a run of misses is a new shape (another block, say) worth
# learning at once; after a poorer one, each next attempt waits for twice as many misses.
_PAID = 4
# Misses after which an envelope that read fewer than one text in _SHARE since it was learned
# goes cold: a miss costs about a fifth of what a text read saves, so offering texts to it no
# longer pays, and they go unoffered (``tries``) until the next attempt to learn.
_COLD = 16
_SHARE = 5


Finder = Callable[[Any], Any]
"""Picks a value from a parsed text; raises ``LookupError`` or ``TypeError`` where it has none."""


class Envelope:
    """Where one value sits in a repeated JSON text; see the module's docstring.

    Args:
        key: The object key the value is found under (searched for in the text).
        find: Picks that value from a parsed text.
        padding: The key and the finder of each padding value.
    """

    __slots__ = (
        "_find",
        "_head",
        "_hits",
        "_hits_seen",
        "_key",
        "_middles",
        "_misses",
        "_padding",
        "_tail",
        "_wait",
        "_waited",
        "_wanted",
        "cold",
        "due",
    )

    def __init__(self, key: str, find: Finder, padding: Sequence[tuple[str, Finder]] = ()) -> None:
        self._key = f'"{key}"'
        self._find = find
        self._padding = [(f'"{name}"', finder) for name, finder in padding]
        self._head: str | None = None
        # With padding: the text between the values scanned (the value and the paddings, in
        # their order), and the place of the value among them.
        self._middles: tuple[str, ...] | None = None
        self._wanted = 0
        self._tail = ""
        self._hits = 0  # texts read since the envelope was learned
        self._misses = 0  # texts not read since it was learned
        self._hits_seen = 0  # ``_hits`` at the last miss: a change means a new run of misses
        self._wait = _FIRST_WAIT  # misses in a row left before learning (again)
        self._waited = 0  # the wait of each run of misses (0: never learned)
        self.cold = True  # no envelope worth reading: nothing learned, or it read nothing
        self.due = False  # a miss says it is time to learn from the next whole parse

    def tries(self, count: int) -> bool:
        """Whether the next ``count`` texts are worth offering to ``read``.

        Not while the envelope is cold (none learned, or the one learned reads too few of its
        texts, as when their keys come in any order): they then count as misses without being
        offered, the caller reads them whole, and ``due`` says when to learn again. Asked once
        for a batch of texts, it spares each of them a call that would most likely miss.
        """
        if not self.cold:
            return True
        self._wait -= count
        self.due = self._wait <= 0
        return False

    def forget(self) -> None:
        """Drop the envelope learned: something the caller checked when it was learned (a
        value outside it that the caller keeps) changed. Texts go unoffered, as while cold,
        until the next attempt to learn, which comes as after a run of misses."""
        self._head = None
        self.cold = True
        self._wait = self._waited

    def read(self, text: str) -> Any:
        """The value ``text`` holds in the learned envelope, or ``MISSING``."""
        head, tail = self._head, self._tail
        if head is not None and text.endswith(tail) and text.startswith(head):
            try:
                if self._middles is None:
                    value, end = scan(text, len(head))
                else:
                    value, end = self._read_padded(text, len(head))
            except (StopIteration, ValueError):
                end = -1
            if end == len(text) - len(tail):
                self._hits += 1  # the only work a hit adds: the hot path
                return value
        if self._hits != self._hits_seen:  # texts were read since the last miss: a new run
            self._hits_seen = self._hits
            self._wait = self._waited
        self._wait -= 1
        self.due = self._wait <= 0
        self._misses += 1
        if self._misses >= _COLD and _SHARE * self._hits < self._misses:
            self.cold = True  # it reads too few texts to be worth offering them
        return MISSING

    def _read_padded(self, text: str, at: int) -> tuple[Any, int]:
        """The value among the values scanned from ``at`` on, and where the last one ends;
        (``MISSING``, -1) when the text between them differs."""
        middles, wanted = self._middles or (), self._wanted
        first, at = scan(text, at)
        if len(middles) == 1:  # one padding, the common case: no loop
            middle = middles[0]
            if not text.startswith(middle, at):
                return MISSING, -1
            second, at = scan(text, at + len(middle))
            return (second if wanted else first), at
        if len(middles) == 2:  # two paddings (a sequence number and a filler, say): no loop
            middle, last = middles
            if not text.startswith(middle, at):
                return MISSING, -1
            second, at = scan(text, at + len(middle))
            if not text.startswith(last, at):
                return MISSING, -1
            third, at = scan(text, at + len(last))
            return (first, second, third)[wanted], at
        values = [first]
        for middle in middles:
            if not text.startswith(middle, at):
                return MISSING, -1
            scanned, at = scan(text, at + len(middle))
            values.append(scanned)
        return values[wanted], at

    def learn(self, text: str, parsed: Any) -> None:
        """Take ``text`` (parsed as ``parsed``) as the envelope, when its value can be placed.

        Called when ``due``. An envelope that paid for its learning is learned again at the
        first miss (the shape changed: another block, say). While learned envelopes bring
        little (every text differs, or shapes take turns, with a padding field and without, or
        with their keys in another order), each next attempt waits for twice as many misses in
        a row, so learning never costs more than a small part of the stream's parsing.
        """
        waited, hits = self._waited, self._hits
        paid = (hits >= _PAID and hits >= self._misses) or not waited
        self._waited = 1 if paid else min(2 * waited, _MOST_WAIT)
        self._wait, self._hits, self._hits_seen, self.due = self._waited, 0, 0, False
        self._misses = 0
        self._head, self._middles, self.cold = None, None, True
        value = _place(text, parsed, self._key, self._find)
        if value is None:
            return
        places = [value] + [
            place
            for key, find in self._padding
            if (place := _place(text, parsed, key, find)) is not None
        ]
        places.sort()
        if any(after[0] < before[1] for before, after in pairwise(places)):
            return  # a padding inside the value, or the value inside a padding
        self._head, self._tail = text[: places[0][0]], text[places[-1][1] :]
        self.cold = False
        if len(places) > 1:
            self._wanted = places.index(value)
            self._middles = tuple(text[before[1] : after[0]] for before, after in pairwise(places))


def _place(text: str, parsed: Any, key: str, find: Finder) -> tuple[int, int] | None:
    """Where in ``text`` the value ``find`` picks is written, if anywhere.

    Each ``key`` in the text is tried: its value is the one when the text, that value
    replaced by a probe, parses to the probe at ``find``'s path.
    """
    start = text.find(key)
    if start < 0:
        return None  # first: a padding field that is absent costs no exception
    try:
        if _is_probe(find(parsed)):
            return None  # the probe could not be told from this value
    except (LookupError, TypeError):
        return None
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
