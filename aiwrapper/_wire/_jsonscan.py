"""``loads``: ``json.loads`` for the streaming hot path, without its per-call overhead.

Every streamed delta is one small JSON document. ``json.loads`` reaches the C scanner through
three Python-level calls and two whitespace regex matches; for a 200-byte chunk that wrapping
costs about as much as the parse itself. ``loads`` calls the same C scanner directly and hands
anything unusual (trailing data, invalid text) to ``json.loads``, so its results and its errors
are exactly ``json.loads``'s.
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
    # White space before the value (``data:  {...}``, a tab after the colon) is stripped
    # first: ``lstrip`` returns the text itself when there is none, and a scanner refusal
    # (an exception) would cost more than the parse of a short document.
    body = text.lstrip(_WHITESPACE)
    try:
        value, end = scan(body, 0)
    except (StopIteration, ValueError):  # empty or invalid: json.loads says what is wrong
        return json.loads(text)
    if end != len(body) and body[end:].strip(_WHITESPACE):  # extra data: json.loads says so
        return json.loads(text)
    return value


def scan_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, when it is exactly one object; else None.

    For fast paths that hand anything else to ``loads`` (and its errors) afterwards: text that
    is no JSON (``[DONE]``, say) costs no more than the scanner's refusal. White space around
    the object is allowed, as JSON allows it.
    """
    body = text.lstrip(_WHITESPACE)
    try:
        value, end = scan(body, 0)
    except (StopIteration, ValueError):
        return None
    if end != len(body) and body[end:].strip(_WHITESPACE):
        return None  # more after the value
    return value if value.__class__ is dict else None
