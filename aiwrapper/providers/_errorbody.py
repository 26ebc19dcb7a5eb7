"""The message of an error body in no wire's own shape, for every wire's error mapping.

Between the SDK and a provider there may be a proxy or a gateway built on a web framework,
whose refusals have their own shapes: FastAPI's ``{"detail": ...}``, a validator's
``{"detail", "validation"}``, RFC 9457's ``{"title", "errors"}``, a bare ``{"msg"}``. When a
wire's own message is missing, its error mapping asks here, so the user reads what the server
said instead of "HTTP 422" alone. The body itself stays on the error (``ProviderError.body``).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loose_message"]

# The first of these that holds something is the message...
_MESSAGE_KEYS = ("message", "detail", "error", "title", "msg", "error_description")
# ...and these, when present, say where the request went wrong.
_CONTEXT_KEYS = ("validation", "errors", "details", "param")
_MOST_CHARS = 500


def loose_message(parsed: Any) -> str:
    """What an error body says, from whichever common keys it has; ``""`` when nothing.

    Args:
        parsed: The body as JSON, or its text when it was not JSON.
    """
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
        parsed = parsed[0]  # Google wraps unstreamed answers, errors too, in an array
    if isinstance(parsed, str):
        return parsed.strip()[:_MOST_CHARS]
    if not isinstance(parsed, dict):
        return ""
    # An ``error`` object is the wire's own shape, already read by the caller: only a string.
    found = (_text(parsed.get(k)) for k in _MESSAGE_KEYS if k != "error" or _is_str(parsed, k))
    head = [next((text for text in found if text), "")]
    context = [f"{key}: {_text(parsed[key])}" for key in _CONTEXT_KEYS if _text(parsed.get(key))]
    return "; ".join(part for part in head + context if part)[:_MOST_CHARS]


def _is_str(parsed: dict[str, Any], key: str) -> bool:
    return isinstance(parsed.get(key), str)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if value is None or value == {} or value == []:
        return ""
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)[:_MOST_CHARS]
    except (ValueError, TypeError, RecursionError):  # nested past what the encoder follows
        return "(unreadable)"
