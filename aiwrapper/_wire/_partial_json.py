"""Best-effort parsing of JSON that is still arriving, for showing calls while they stream.

``PartialJSON`` is a resumable parser: ``feed`` it each fragment and read ``value`` at any time.
``'{"city": "Os'`` reads as ``{"city": "Os"}``: open strings, arrays and objects show what they
hold so far, a half-written escape (``\\u00``, or a high surrogate still waiting for its low
half) is left out until it is complete, a number shows its digits so far (``12.`` reads 12, a
lone ``-`` nothing), and a key without a value or a half-written literal is left out. Feeding
is O(fragment) and leaves ``value`` up to date, so reading it is O(1): containers are built in
place as the text arrives, and a growing string is extended in place, never rebuilt. The
parser keeps an explicit stack, so no nesting depth can exhaust Python's recursion limit.
Text that stops being JSON keeps the value read up to that point. Final arguments are parsed
strictly elsewhere; this is only for display.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["PartialJSON", "parse_partial"]

_NOTHING: Any = object()
_WHITESPACE = re.compile(r"[ \t\r\n]*")
_STRING_STOP = re.compile(r'["\\]')
_NUMBER_CHARS = re.compile(r"[0-9eE.+-]*")
# The end of a number still waiting for a digit: a lone sign, or a point or exponent after one.
_CUT_NUMBER = re.compile(r"(-|(?<=\d)(\.|[eE][+-]?))$")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}

# What the parser expects next outside a token.
_VALUE, _FIRST_VALUE, _KEY, _FIRST_KEY, _COLON, _COMMA, _END = range(7)
# The token being read.
_NONE, _STRING, _NAME, _NUMBER, _LITERAL = range(5)


def parse_partial(text: str) -> Any:
    """The value ``text`` is the beginning of, as far as it can be told, or ``None``."""
    return PartialJSON().feed(text)


class PartialJSON:
    """A resumable parser of one JSON value arriving in fragments."""

    __slots__ = (
        "_containers",
        "_escape",
        "_expect",
        "_failed",
        "_high",
        "_in_string",
        "_key",
        "_pieces",
        "_slot",
        "_slot_key",
        "_text",
        "_token",
        "_top",
    )

    def __init__(self) -> None:
        self._containers: list[dict[str, Any] | list[Any]] = []  # open objects and arrays
        self._top: list[Any] = [_NOTHING]  # holds the root value, so it has a slot like others
        self._expect = _VALUE
        self._token = _NONE
        self._failed = False
        self._key = ""  # the key the next value of the open object goes under
        # Where the value being read is shown: its object and key, its array and index, or
        # ``_top`` and 0; None until it shows (a lone ``-`` or ``tr`` never does).
        self._slot: Any = None
        self._slot_key: Any = 0
        self._pieces: list[str] = []  # decoded text of the open key
        self._text = ""  # the open number or literal as far as it was read
        self._escape = ""  # an escape of the open string still incomplete: "\\", "\\u00"...
        self._high = ""  # a high surrogate waiting for its low half
        # In an open string with nothing pending (no escape or surrogate half, not failed):
        # set after every fragment of the general path, the one place that changes these.
        self._in_string = False

    @property
    def value(self) -> Any:
        """The value so far; ``None`` before any of it can be told."""
        root = self._top[0]  # kept up to date by ``feed``
        return None if root is _NOTHING else root

    def feed(self, text: str) -> Any:
        """Read the next fragment of the text; return the value so far, as ``value`` does."""
        if self._in_string and '"' not in text and "\\" not in text:
            # Most fragments of a long argument are more of an open string: added here, as
            # ``_read_string`` and ``_add_piece`` would add them, without their calls.
            slot, key = self._slot, self._slot_key
            grown = slot[key]
            slot[key] = None  # dropped first, so ``grown`` is extended in place (see _add_piece)
            grown += text
            slot[key] = grown
            return self._top[0]  # an open string shows from its quote on: the root is shown
        i, end = 0, len(text)
        while i < end and not self._failed:
            token = self._token
            if token in (_STRING, _NAME):
                i = self._read_string(text, i)
            elif token == _NUMBER:
                i = self._read_number(text, i)
            elif token == _LITERAL:
                i = self._read_literal(text, i)
            else:
                i = _WHITESPACE.match(text, i).end()  # type: ignore[union-attr]
                if i < end:
                    self._structural(text[i])
                    i += 1
        if self._token == _NUMBER and not self._failed:  # cut off by the fragment's end
            self._show_number()
        self._in_string = self._token == _STRING and not (
            self._escape or self._failed or self._high
        )
        return self.value

    def _structural(self, char: str) -> None:
        expect = self._expect
        if expect in (_VALUE, _FIRST_VALUE):
            if char == "]" and expect == _FIRST_VALUE:
                self._close()
            else:
                self._start_value(char)
        elif expect in (_KEY, _FIRST_KEY):
            if char == '"':
                self._token = _NAME
                self._pieces.clear()
            elif char == "}" and expect == _FIRST_KEY:
                self._close()
            else:
                self._failed = True
        elif expect == _COLON and char == ":":
            self._expect = _VALUE
        elif expect == _COMMA and char == ",":
            self._expect = _KEY if isinstance(self._containers[-1], dict) else _VALUE
        elif expect == _COMMA and char == ("}" if isinstance(self._containers[-1], dict) else "]"):
            self._close()
        else:
            self._failed = True

    def _start_value(self, char: str) -> None:
        self._slot = None
        if char == "{" or char == "[":
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            self._place(container)
            self._containers.append(container)
            self._expect = _FIRST_KEY if char == "{" else _FIRST_VALUE
        elif char == '"':
            self._token = _STRING
            self._pieces.clear()
            self._place("")  # an open string shows at once, empty
        elif char == "-" or "0" <= char <= "9":
            self._token, self._text = _NUMBER, char
        elif char in "tfn":
            self._token, self._text = _LITERAL, char
        else:
            self._failed = True

    def _place(self, value: Any) -> None:
        """Show the value being read in its slot, taking the slot on first showing."""
        slot = self._slot
        if slot is None:
            key: Any
            containers = self._containers
            if not containers:
                slot, key = self._top, 0
            elif isinstance(containers[-1], dict):
                slot, key = containers[-1], self._key
            else:
                slot = containers[-1]
                key = len(slot)
                slot.append(None)
            self._slot, self._slot_key = slot, key
        slot[self._slot_key] = value

    def _value_done(self) -> None:
        self._token = _NONE
        self._expect = _COMMA if self._containers else _END

    def _close(self) -> None:
        self._containers.pop()
        self._value_done()

    def _read_string(self, text: str, i: int) -> int:
        end = len(text)
        pieces: list[str] = []  # decoded text of this fragment, added at once
        while i < end:
            if self._escape:  # only ever at the fragment's start: ``pieces`` is empty
                i = self._read_escape(text, i)
                continue
            # Most fragments hold neither a quote nor a backslash: two ``in`` tests tell so
            # in a third of the time of the search.
            stop = _STRING_STOP.search(text, i) if '"' in text or "\\" in text else None
            j = end if stop is None else stop.start()
            if j > i:
                pieces.append(text[i:j])  # the whole fragment itself when it all fits
            if j == end:
                break
            if text[j] == '"':
                self._add_pieces(pieces)
                self._end_string()
                return j + 1
            # A two-character escape (\n, \") whole in this fragment is decoded right here;
            # any other (\u, or one cut off by the fragment's end) goes to ``_read_escape``.
            decoded = _ESCAPES.get(text[j + 1 : j + 2])
            if decoded is not None:
                pieces.append(decoded)
                i = j + 2
                continue
            self._add_pieces(pieces)
            pieces = []
            self._escape, i = "\\", j + 1
        self._add_pieces(pieces)
        return end

    def _add_pieces(self, pieces: list[str]) -> None:
        if pieces:
            self._add_piece(pieces[0] if len(pieces) == 1 else "".join(pieces))

    def _read_escape(self, text: str, i: int) -> int:
        escape = self._escape
        take = (2 if len(escape) == 1 or escape[1] != "u" else 6) - len(escape)
        escape += text[i : i + take]
        i += take
        if len(escape) == 2 and escape[1] != "u":
            decoded = _ESCAPES.get(escape[1])
            if decoded is None:
                self._failed = True
            else:
                self._add_piece(decoded)
        elif len(escape) == 6:
            self._add_code_point(escape[2:])
        else:
            self._escape = escape  # still incomplete: the fragment ended inside it
            return i
        self._escape = ""
        return i

    def _add_code_point(self, digits: str) -> None:
        try:
            code = int(digits, 16)
        except ValueError:
            self._failed = True
            return
        if 0xDC00 <= code <= 0xDFFF and self._high:  # the low half completes the pair
            pair = (ord(self._high) - 0xD800) * 0x400 + (code - 0xDC00) + 0x10000
            self._high = ""
            self._add_piece(chr(pair))
        elif 0xD800 <= code <= 0xDBFF:
            self._add_piece("")  # a high surrogate already waiting stays alone, as json does
            self._high = chr(code)
        else:
            self._add_piece(chr(code))

    def _add_piece(self, piece: str) -> None:
        """Add decoded text to the open key, or to the open string where it is shown."""
        if self._high:  # not followed by its low half: kept alone, as json.loads does
            piece, self._high = self._high + piece, ""
        if not piece:
            return
        if self._token == _NAME:
            self._pieces.append(piece)
            return
        slot, key = self._slot, self._slot_key
        text = slot[key]
        # Dropped from its slot first: when ``text`` is then held only here, the interpreter
        # extends it in place, so a string growing by a fragment at a time costs O(fragment)
        # each time instead of a copy of all of it.
        slot[key] = None
        text += piece
        slot[key] = text

    def _end_string(self) -> None:
        self._add_piece("")
        if self._token == _NAME:
            self._key = "".join(self._pieces)
            self._token, self._expect = _NONE, _COLON
            return
        self._value_done()

    def _read_number(self, text: str, i: int) -> int:
        j = _NUMBER_CHARS.match(text, i).end()  # type: ignore[union-attr]
        self._text += text[i:j]
        if j < len(text):  # the number ended before the fragment did
            try:
                self._place(json.loads(self._text))
            except ValueError:
                self._failed = True
            self._text = ""
            self._value_done()
        return j

    def _show_number(self) -> None:
        """Show the open number as far as it was read (a lone ``-`` shows nothing yet)."""
        number = _number_so_far(self._text)
        if number is not _NOTHING:
            self._place(number)

    def _read_literal(self, text: str, i: int) -> int:
        word = self._text
        while i < len(text) and word not in _LITERALS:
            word += text[i]
            i += 1
            if not any(literal.startswith(word) for literal in _LITERALS):
                self._failed = True
                return i
        self._text = word
        if word in _LITERALS:
            self._place(_LITERALS[word])
            self._text = ""
            self._value_done()
        return i


def _number_so_far(text: str) -> Any:
    """The number a partial number text shows, or ``_NOTHING`` before its first digit."""
    digits = _CUT_NUMBER.sub("", text)
    if not digits or digits == "-":
        return _NOTHING
    try:
        return json.loads(digits)
    except ValueError:
        return _NOTHING
