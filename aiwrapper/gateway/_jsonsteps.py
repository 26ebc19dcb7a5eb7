"""``loads``: ``json.loads`` for a big UTF-8 body, in steps that each hold the GIL briefly.

json's C parser holds the GIL for a whole document, and its pure-Python parser still hands
whole tokens to C: one 8 MiB string, run of whitespace or number is one uninterruptible call
(10 to 140 ms measured). Here every call into C looks at ``STEP`` characters at most (the
UTF-8 decoding, whitespace, strings and numbers), and the Python between them lets a switch
of threads happen, so a worker thread parsing a big body never holds the event loop long.

The values are exactly ``json.loads``'s (``NaN`` and ``Infinity`` included, the last of
duplicate keys kept); invalid text raises ``ValueError`` (``json.JSONDecodeError``) as it does,
except that a number longer than ``STEP`` characters is refused (no int takes one and no
client sends one). Nesting costs two frames a level, as in json's pure-Python parser.
"""

from __future__ import annotations

import codecs
import json.decoder
import math
import re
from collections.abc import Callable
from json import JSONDecodeError
from json.scanner import NUMBER_RE
from typing import Any

__all__ = ["STEP", "loads"]

STEP = 64 * 1024  # characters (or bytes) one call into C looks at, at most
# json's string reader (C where available): (text, index after the opening quote, strict).
_read_string: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
# json's value reader with json.loads's settings (C where available): (text, index).
_scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")
_SMALL = (1024, 16 * 1024)  # sizes of the pieces json's C parser tries a container in
_BLANK = frozenset(" \t\n\r")  # (a frozenset: the empty string at the end is not in it)
_ESCAPE_FREE_RUN = re.compile(r"[^\\]{6}")  # past it, no escape (six characters at most) is open
_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_LITERALS = {"n": ("null", None), "t": ("true", True), "f": ("false", False)}
_CONSTANTS = {"N": ("NaN", math.nan), "I": ("Infinity", math.inf), "-": ("-Infinity", -math.inf)}


def loads(body: bytes, *, step: int = STEP) -> Any:
    """The JSON value of UTF-8 ``body``; ``ValueError`` when it is not JSON."""
    return _Reader(_utf8(body, step), step).document()


def _utf8(body: bytes, step: int) -> str:
    """``body.decode("utf-8")``, a piece at a time (non-ASCII text decodes at ~3 ms a MiB)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(body)
    pieces = [decoder.decode(view[i : i + step]) for i in range(0, len(body), step)]
    pieces.append(decoder.decode(b"", final=True))
    return "".join(pieces)


class _Reader:
    """One document's text and the parsing of its values."""

    __slots__ = ("memo", "pieces", "step", "text")

    def __init__(self, text: str, step: int) -> None:
        self.text = text
        self.step = step
        self.pieces = sorted({min(size, step) for size in _SMALL})
        self.memo: dict[str, str] = {}  # one string per distinct key, as json's parser keeps

    def document(self) -> Any:
        value, end = self.value(self.space(0))
        end = self.space(end)
        if end != len(self.text):
            raise JSONDecodeError("Extra data", self.text, end)
        return value

    def space(self, at: int) -> int:
        """The index of the first character from ``at`` on that is not whitespace."""
        text, step = self.text, self.step
        while True:
            end = _SPACE.match(text, at, at + step).end()  # type: ignore[union-attr]
            if end < at + step:
                return end
            at = end

    def value(self, at: int) -> tuple[Any, int]:
        """The value starting at ``at`` and the index after it."""
        text = self.text
        char = text[at : at + 1]
        if char == '"':
            return self.string(at + 1)
        if char == "{" or char == "[":
            small = self.small(at)
            if small is not None:
                return small
            return self.object(at + 1) if char == "{" else self.array(at + 1)
        if char in _LITERALS:
            word, meaning = _LITERALS[char]
            if text.startswith(word, at):
                return meaning, at + len(word)
        return self.number(at)

    def small(self, at: int) -> tuple[Any, int] | None:
        """The object or array at ``at`` read by json's C parser at once, if it is small.

        C reads a copy of the next few KiB: a container is whole in it or fails there (it
        closes with its own bracket), so its value is the same and its cost is bounded. None
        when it fails: the container is read step by step, which also finds any real error.
        """
        for size in self.pieces:
            piece = self.text[at : at + size]
            try:
                value, end = _scan(piece, 0)
            except (StopIteration, ValueError, RecursionError):
                if len(piece) < size:  # the text ends in it: not a matter of size
                    return None
                continue
            return value, at + end
        return None

    def number(self, at: int) -> tuple[Any, int]:
        text = self.text
        found = NUMBER_RE.match(text, at, at + STEP)
        if found is not None:
            if found.end() == at + STEP:
                raise JSONDecodeError("Number too long", text, at)
            integer, fraction, exponent = found.groups()
            if fraction or exponent:
                return float(integer + (fraction or "") + (exponent or "")), found.end()
            return int(integer), found.end()
        word, meaning = _CONSTANTS.get(text[at : at + 1], ("", 0.0))
        if word and text.startswith(word, at):
            return meaning, at + len(word)
        raise JSONDecodeError("Expecting value", text, at)

    def string(self, at: int) -> tuple[str, int]:
        """The string whose opening quote is just before ``at``, and the index after it."""
        text = self.text
        close = text.find('"', at, at + self.step)
        if close != -1 and text[close - 1] != "\\":  # it ends there: C reads it all at once
            return _read_string(text, at, True)
        return self.long_string(at)

    def long_string(self, at: int) -> tuple[str, int]:
        """A string read by C a piece at a time, each piece cut where no escape is open."""
        text, begin, pieces = self.text, at - 1, []
        while at < len(text):
            cut = self.cut(at)
            piece, end = _read_string(text[at:cut] + '"', 0, True)
            pieces.append(piece)
            if end <= cut - at:  # its own closing quote came first
                return "".join(pieces), at + end
            at = cut
        raise JSONDecodeError("Unterminated string starting at", text, begin)

    def cut(self, at: int) -> int:
        """A place past ``at`` (where no escape is open), at most ``step`` on, where none is."""
        text, end = self.text, min(at + self.step, len(self.text))
        if end == len(text) or "\\" not in text[end - 6 : end]:
            return end
        run = _ESCAPE_FREE_RUN.search(text, max(at, end - 1024), end)
        if run is not None:
            return run.end()
        while at < end:  # escapes close together: walk them one by one
            if text[at] != "\\":
                at += 1
            elif text[at + 1 : at + 2] != "u":
                at += 2
            else:
                high = 0xD800 <= _hex(text, at) <= 0xDBFF
                at += 6
                if high and 0xDC00 <= _hex(text, at) <= 0xDFFF:  # a surrogate pair stays whole
                    at += 6
        return at

    def object(self, at: int) -> tuple[dict[str, Any], int]:
        text, pairs, blank, space = self.text, [], _BLANK, self.space
        string, value, memo = self.string, self.value, self.memo.setdefault
        if text[at : at + 1] in blank:
            at = space(at)
        if text[at : at + 1] == "}":
            return {}, at + 1
        while True:
            if text[at : at + 1] != '"':
                raise JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
            key, at = string(at + 1)
            key = memo(key, key)
            if text[at : at + 1] in blank:
                at = space(at)
            if text[at : at + 1] != ":":
                raise JSONDecodeError("Expecting ':' delimiter", text, at)
            at += 1
            if text[at : at + 1] in blank:  # one space, as json.dumps writes, is skipped here
                at = at + 1 if text[at + 1 : at + 2] not in blank else space(at)
            item, at = string(at + 1) if text[at : at + 1] == '"' else value(at)
            pairs.append((key, item))
            if text[at : at + 1] in blank:
                at = space(at)
            char = text[at : at + 1]
            if char == "}":
                return dict(pairs), at + 1
            if char != ",":
                raise JSONDecodeError("Expecting ',' delimiter", text, at)
            at += 1
            if text[at : at + 1] in blank:
                at = at + 1 if text[at + 1 : at + 2] not in blank else space(at)

    def array(self, at: int) -> tuple[list[Any], int]:
        text, values, blank, space = self.text, list[Any](), _BLANK, self.space
        string, value = self.string, self.value
        if text[at : at + 1] in blank:
            at = space(at)
        if text[at : at + 1] == "]":
            return values, at + 1
        while True:
            item, at = string(at + 1) if text[at : at + 1] == '"' else value(at)
            values.append(item)
            if text[at : at + 1] in blank:
                at = space(at)
            char = text[at : at + 1]
            if char == "]":
                return values, at + 1
            if char != ",":
                raise JSONDecodeError("Expecting ',' delimiter", text, at)
            at += 1
            if text[at : at + 1] in blank:
                at = at + 1 if text[at + 1 : at + 2] not in blank else space(at)


def _hex(text: str, at: int) -> int:
    """The code of the ``\\uXXXX`` escape at ``at``; -1 when there is none (C will say why)."""
    found = _UNICODE_ESCAPE.match(text, at)
    return int(found[1], 16) if found else -1
