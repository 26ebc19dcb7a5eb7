"""Best-effort parsing of JSON that is still arriving, for showing calls while they stream.

``parse_partial('{"city": "Os')`` gives ``{"city": "Os"}``: open strings, arrays and objects are
closed, and a trailing key without a value or a half-written literal is dropped. It never
raises; text it cannot make sense of gives ``None``. Final arguments are parsed strictly
elsewhere; this is only for display.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_partial"]

_CLOSERS = {"{": "}", "[": "]"}


def parse_partial(text: str) -> Any:
    """The value ``text`` is the beginning of, as far as it can be told, or ``None``."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    stack, in_string, escaped = _scan(text)
    candidate = text + ('"' if in_string and not escaped else "")
    for _ in range(3):  # trim a dangling key, colon, comma or half literal, then retry
        closed = candidate.rstrip() + "".join(_CLOSERS[c] for c in reversed(stack))
        try:
            return json.loads(closed)
        except ValueError:
            candidate = _trim_tail(candidate)
            stack, in_string, _ = _scan(candidate)
            if in_string:
                return None
    return None


def _scan(text: str) -> tuple[list[str], bool, bool]:
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return stack, in_string, escaped


def _trim_tail(text: str) -> str:
    """Drop the last incomplete member: back to the previous ``,`` or opening bracket."""
    stripped = text.rstrip().rstrip(",:")
    cut = max(stripped.rfind(","), stripped.rfind("{"), stripped.rfind("["))
    if cut < 0:
        return ""
    return stripped[: cut + 1] if stripped[cut] in "{[" else stripped[:cut]
