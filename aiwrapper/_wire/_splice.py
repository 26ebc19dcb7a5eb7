"""Request bodies carrying large strings (images and documents in base64), written without copies.

``json`` writes a string by escaping it into a new one and joining every piece into the body's
text, which is then encoded to bytes: a 27 MB base64 PDF would stand in memory four times over
(the string, its escaped copy, the joined text, the bytes). Here each string of ``LARGE``
characters or more is swapped for a short placeholder before the rest of the body is written,
and the bytes are assembled in one buffer sized for the whole body, each large string escaped
and copied into it a slice at a time: beside the string and the body's bytes, only a slice is
extra. Bodies without such strings are left to the plain path; finding out walks the body's
dicts and lists once, which costs less than writing them (about a third on a long tool loop).
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

from ._jsontext import dumps_compact

__all__ = ["LARGE", "LargeStrings"]

LARGE = 1 << 16  # characters: a string this long is spliced in rather than written by json
_SLICE = 1 << 18  # characters escaped and copied at a time


class LargeStrings:
    """A body's large strings, taken out and replaced by placeholders, to be spliced back."""

    __slots__ = ("body", "found", "token")

    def __init__(self) -> None:
        self.found: list[str] = []
        self.token = ""  # made when the first large string is found
        self.body: Any = None

    @classmethod
    def of(cls, body: Any) -> LargeStrings | None:
        """The body with its large strings swapped out, or None when it holds none.

        Raises:
            RecursionError: The body nests too deeply to walk.
        """
        if not _holds_large(body):  # most bodies: one quick walk, nothing copied
            return None
        swap = cls()
        swap.body = swap._swapped(body)
        return swap

    def _swapped(self, value: Any) -> Any:
        """``value``, or a copy of the containers that hold a large string, swapped out."""
        kind = value.__class__
        if kind is str:
            return self._placeholder(value) if len(value) >= LARGE else value
        if kind is dict:
            copied = None
            for key, item in value.items():
                new = self._swapped(item)
                if new is not item:
                    copied = copied if copied is not None else dict(value)
                    copied[key] = new
            return value if copied is None else copied
        if kind is list:
            items = [self._swapped(item) for item in value]
            changed = any(new is not old for new, old in zip(items, value, strict=True))
            return items if changed else value
        return value  # numbers, None, shared tool declarations (never large strings)

    def _placeholder(self, text: str) -> str:
        if not self.token:
            self.token = f"@{os.urandom(12).hex()}@"
        self.found.append(text)
        return f"{self.token}{len(self.found) - 1}"

    def assemble(self, text: str) -> bytes:
        """The body's bytes: ``text`` (the swapped body as JSON) with the strings spliced in.

        Raises:
            UnicodeEncodeError: A string holds a lone surrogate, which UTF-8 cannot carry.
        """
        pieces = re.split(f'"{re.escape(self.token)}(\\d+)"', text)
        small = [piece.encode() for piece in pieces[::2]]
        strings = [self.found[int(index)] for index in pieces[1::2]]
        out = _sized(sum(map(len, small)) + sum(len(s) + 2 for s in strings))
        for index, piece in enumerate(small):
            out.write(piece)
            if index < len(strings):
                _write_string(out, strings[index])
        return out.getvalue()


def _holds_large(value: Any) -> bool:
    """Whether a large string stands anywhere in ``value`` (dicts and lists walked)."""
    kind = value.__class__
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return kind is str and len(value) >= LARGE
    for item in value:
        kind = item.__class__
        if kind is str:
            if len(item) >= LARGE:
                return True
        elif (kind is dict or kind is list) and _holds_large(item):
            return True
    return False


def _sized(size: int) -> io.BytesIO:
    """A buffer that holds ``size`` bytes without growing (more if the strings need escapes).

    Written at its last byte first, the buffer is allocated once at its final size, and
    ``getvalue`` then hands out that memory as the bytes object instead of copying it.
    """
    out = io.BytesIO()
    if size > 0:
        out.seek(size - 1)
        out.write(b"\0")
        out.seek(0)
    return out


def _write_string(out: io.BytesIO, text: str) -> None:
    """``text`` as a JSON string, escaped and encoded a slice at a time."""
    out.write(b'"')
    for start in range(0, len(text), _SLICE):
        out.write(dumps_compact(text[start : start + _SLICE])[1:-1].encode())
    out.write(b'"')
