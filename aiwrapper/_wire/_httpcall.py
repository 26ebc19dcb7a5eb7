"""One HTTP request ready to send, and the server's ``retry-after`` hint: the data the
transport (``_http.py``) and the providers share.

It sits below both, importing nothing of aiwrapper, so the transport needs no provider module:
a provider builds an ``HttpCall``, the transport sends it and reads the hint from the headers.
"""

from __future__ import annotations

import datetime
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_RETRY_HINT", "HttpCall", "bounded_delay", "retry_after_seconds"]

# The longest delay a server's hint is read as (what ``RateLimitError.retry_after`` says): a
# day, past which the hint is a mistake or hostile. Waits between retries are capped far lower.
MAX_RETRY_HINT = 86_400.0


@dataclass(frozen=True, slots=True)
class HttpCall:
    """One HTTP request, ready to send: ``POST url`` with ``headers`` and a JSON ``body``.

    ``content``, when set, is the body's JSON bytes, written already (a big request's, off the
    event loop); ``body`` may then be left empty.
    """

    url: str
    headers: dict[str, str] = field(repr=False)  # they hold the API key
    body: dict[str, Any]
    stream: bool
    provider: str = ""  # for log lines; the model sets both before sending
    model: str = ""
    content: bytes | None = field(default=None, repr=False)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    A header that does not parse (or is not a finite, non-negative number) is ignored, so an
    unreadable ``retry-after-ms`` still lets ``retry-after`` speak; one past a day is a day.
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = _number(lowered.get("retry-after-ms"))
    if millis is not None:
        return bounded_delay(millis / 1000)
    value = lowered.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    return bounded_delay(seconds) if seconds is not None else _until_http_date(value)


def bounded_delay(seconds: float) -> float | None:
    """A delay a server asked for, made usable: None when negative, NaN or infinite (a
    400-digit number reads as infinite), and at most ``MAX_RETRY_HINT``."""
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_HINT)


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) and number >= 0 else None


def _until_http_date(value: str) -> float | None:
    import email.utils  # only for the rare HTTP-date form; keeps import time down

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT; a zone-less one is read as UTC too
        when = when.replace(tzinfo=datetime.timezone.utc)
    return min(max(0.0, when.timestamp() - time.time()), MAX_RETRY_HINT)
