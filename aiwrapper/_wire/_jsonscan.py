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


def loads(text: str) -> Any:
    """Parse one JSON document, as ``json.loads(text)`` does."""
    try:
        value, end = scan(text, 0)
    except StopIteration:  # leading whitespace, empty or invalid text: let json.loads say
        return json.loads(text)
    if end != len(text):  # trailing whitespace or extra data
        return json.loads(text)
    return value


def scan_object(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` holds, when it is exactly one object; else None.

    For fast paths that hand anything else to ``loads`` (and its errors) afterwards: text that
    does not start with ``{`` (``[DONE]``, say) is told at once, without building an error.
    """
    if text[:1] != "{":
        return None
    try:
        value, end = scan(text, 0)
    except (StopIteration, ValueError):
        return None
    return value if end == len(text) else None
