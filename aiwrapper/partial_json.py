"""Best-effort parsing of JSON that is still arriving, for showing calls while they stream.

``parse_partial('{"city": "Os')`` gives ``{"city": "Os"}``: open strings, arrays and objects are
closed, a half-written escape (``\\u00``) is dropped from an open string, a number cut after its
sign, point or exponent keeps its digits, and a trailing key without a value or a half-written
literal is dropped. It never raises; text it cannot make sense of gives ``None``. Final
arguments are parsed strictly elsewhere; this is only for display.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["parse_partial"]

_CLOSERS = {"{": "}", "[": "]"}
# The end of a number still waiting for a digit: a lone sign, or a point or exponent after one.
_CUT_NUMBER = re.compile(r"(-|(?<=\d)(\.|[eE][+-]?))$")
# A high surrogate escape at the end of an open string: its low half is still to come, and a
# lone surrogate cannot even be printed, so it is dropped until the pair is complete.
_HIGH_SURROGATE = re.compile(r"(?:^|[^\\])(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2})$")


def parse_partial(text: str) -> Any:
    """The value ``text`` is the beginning of, as far as it can be told, or ``None``."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    candidate = text
    for _ in range(4):  # close what is open; else drop the last incomplete member and retry
        stack, cuts, escape_at, in_string = _scan(candidate)
        if in_string:
            closed = _drop_high_surrogate(candidate[:escape_at]) + '"'
        else:
            closed = _CUT_NUMBER.sub("", candidate.rstrip()).rstrip().rstrip(",:")
        try:
            return json.loads(closed + "".join(_CLOSERS[c] for c in reversed(stack)))
        except ValueError:
            pass
        if not cuts:
            return None
        cut = cuts[-1]  # the last `,` (drop it and what follows) or opener (keep it, empty)
        candidate = candidate[: cut + 1] if candidate[cut] in "{[" else candidate[:cut]
    return None


def _drop_high_surrogate(text: str) -> str:
    match = _HIGH_SURROGATE.search(text)
    return text[: match.start(1)] if match else text


def _scan(text: str) -> tuple[list[str], list[int], int, bool]:
    """Brackets left open, cut points outside strings, and the state of an open string.

    Cut points are the positions of ``,``, ``{`` and ``[`` outside strings and outside
    containers already closed. ``escape_at`` is where an unfinished escape of an open string
    begins (``len(text)`` when there is none), so closing the string can drop it.
    """
    stack: list[str] = []
    openers: list[int] = []
    cuts: list[int] = []
    in_string = False
    escape_at = -1
    for i, ch in enumerate(text):
        if in_string:
            if escape_at >= 0:
                # A one-letter escape ends on its letter, a \uXXXX escape on its 4th digit.
                if (i == escape_at + 1 and ch != "u") or i == escape_at + 5:
                    escape_at = -1
            elif ch == "\\":
                escape_at = i
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
            openers.append(i)
            cuts.append(i)
        elif ch == ",":
            cuts.append(i)
        elif ch in "}]" and stack:
            stack.pop()
            start = openers.pop()
            while cuts and cuts[-1] >= start:
                cuts.pop()
    return stack, cuts, escape_at if in_string and escape_at >= 0 else len(text), in_string
