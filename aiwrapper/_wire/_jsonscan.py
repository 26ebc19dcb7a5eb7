"""``loads``: ``json.loads`` for the streaming hot path, without its per-call overhead.

Every streamed delta is one small JSON document. ``json.loads`` reaches the C scanner through
three Python-level calls and two whitespace regex matches; for a 200-byte chunk that wrapping
costs about as much as the parse itself. ``loads`` calls the same C scanner directly and hands
anything unusual (surrounding whitespace, trailing data, invalid text) to ``json.loads``, so
its results and its errors are exactly ``json.loads``'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["loads", "scan", "scan_object"]

# The C scanner (the Python one where C is missing), with json.loads's default settings.
# ``scan_once`` is set by ``JSONDecoder.__init__`` but not in the type stubs.
scan: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


_WHITESPACE = " \t\n\r"  # JSON's white space, all of it (``str.strip()`` would take more)


def loads(text: str) -> Any:
    """Parse one JSON document, as ``json.loads(text)`` does."""
    try:
        value, end = scan(text, 0)
    except StopIteration:  # leading white space, empty or invalid text
        value = _spaced(text)
        return json.loads(text) if value is _NONE else value  # json.loads says what is wrong
    if end != len(text) and text[end:].strip(_WHITESPACE):  # extra data: json.loads says so
        return json.loads(text)
    return value


_NONE: Any = object()


def _spaced(text: str) -> Any:
    """The value of a text with white space before it (and maybe after), else ``_NONE``.

    Servers that space their JSON (``data:  {...}``, a tab after the colon) are read at the
    scanner's speed too, not at ``json.loads``'s, whose white-space regex costs as much as a
    short parse.
    """
    start = len(text) - len(text.lstrip(_WHITESPACE))
    if not start:
        return _NONE
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError):
        return _NONE
    return value if end == len(text) or not text[end:].strip(_WHITESPACE) else _NONE


def scan_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, when it is exactly one object; else None.

    For fast paths that hand anything else to ``loads`` (and its errors) afterwards: text that
    is no JSON (``[DONE]``, say) costs no more than the scanner's refusal. White space around
    the object is allowed, as JSON allows it.
    """
    try:
        value, end = scan(text, 0)
    except StopIteration:  # white space first (or nothing at all)
        value = _spaced(text)
    except ValueError:
        return None
    else:
        if end != len(text) and text[end:].strip(_WHITESPACE):
            return None  # more after the value
    return value if value.__class__ is dict else None
