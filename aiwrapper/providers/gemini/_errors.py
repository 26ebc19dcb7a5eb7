"""Error mapping for the Gemini wire: ``google.rpc.Status`` bodies to aiwrapper exceptions.

Owns reading Google's error shape ``{"error": {"code", "message", "status", "details"}}``,
both from an HTTP error response and from inside a 200 stream: the class
comes from the ``status`` string first (then the numeric code, then the HTTP status), an
``ErrorInfo`` reason ``API_KEY_INVALID`` means a bad key, and ``RetryInfo.retryDelay`` becomes
``retry_after``. Building requests and decoding answers live elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from ..._wire._httpcall import bounded_delay
from .._base import error_class_for_status, in_stream_error, make_error, parse_json_body
from .._errorbody import loose_message
from ._name import PROVIDER

__all__ = ["error_class", "error_from_response", "error_in_stream", "retry_delay"]


_STATUS_CLASSES: dict[str, type[errors.ProviderError]] = {
    "INVALID_ARGUMENT": errors.BadRequestError,
    "FAILED_PRECONDITION": errors.BadRequestError,
    "OUT_OF_RANGE": errors.BadRequestError,
    "UNAUTHENTICATED": errors.AuthenticationError,
    "PERMISSION_DENIED": errors.PermissionDeniedError,
    "NOT_FOUND": errors.NotFoundError,
    "RESOURCE_EXHAUSTED": errors.RateLimitError,
    "UNAVAILABLE": errors.OverloadedError,
    "INTERNAL": errors.ServerError,
    "DEADLINE_EXCEEDED": errors.ServerError,
    "UNKNOWN": errors.ServerError,
}

# ErrorInfo reasons that mean the credentials are bad, whatever the status says: an invalid
# API key comes back as 400 INVALID_ARGUMENT with reason API_KEY_INVALID.
_AUTH_REASONS = frozenset({"API_KEY_INVALID"})

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)s\s*$")  # protobuf Duration in JSON: "22s", "1.5s"


def _details(error: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    details = error.get("details")
    if not isinstance(details, list):
        return []
    return [d for d in details if isinstance(d, Mapping)]


def retry_delay(error: Mapping[str, Any]) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail's ``retryDelay``, if there is one."""
    for detail in _details(error):
        if str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return bounded_delay(float(match.group(1)))
    return None


def error_class(error: Mapping[str, Any]) -> type[errors.ProviderError] | None:
    """The class for a Google error object, or None when it names nothing known."""
    reasons = {d.get("reason") for d in _details(error)}
    if reasons & _AUTH_REASONS:
        return errors.AuthenticationError
    status = error.get("status")
    if isinstance(status, str) and status in _STATUS_CLASSES:
        return _STATUS_CLASSES[status]
    code = error.get("code")
    if isinstance(code, int) and not isinstance(code, bool) and code >= 400:
        return error_class_for_status(code)
    return None


def _error_object(body: Any) -> Mapping[str, Any]:
    # Without ``alt=sse`` Google wraps answers (errors too) in a JSON array.
    if isinstance(body, list) and body:
        body = body[0]
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        return body["error"]  # type: ignore[no-any-return]
    return {}


def error_from_response(
    status: int, body: bytes, headers: Mapping[str, str]
) -> errors.ProviderError:
    """The exception for an HTTP error response from Gemini or Vertex AI."""
    parsed = parse_json_body(body)
    error = _error_object(parsed)
    cls = error_class(error) or error_class_for_status(status)
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = loose_message(parsed) or f"HTTP {status} without an error message"
    exc = make_error(cls, message, provider=PROVIDER, status=status, body=parsed, headers=headers)
    delay = retry_delay(error)
    if delay is not None:
        exc.retry_after = delay  # RetryInfo is Google's own, more precise than any header
    return exc


def error_in_stream(payload: Mapping[str, Any]) -> errors.AIWrapperError:
    """The exception for an ``{"error": ...}`` object inside a 200 stream (§3.7).

    A known status or code gives its class; anything else is a ``StreamError``.
    """
    error = _error_object(payload)
    raw = payload.get("error")
    text = error.get("message") or (raw if isinstance(raw, str) and raw else "no message")
    message = f"error inside the Gemini stream: {text}"
    code = error.get("code")
    return in_stream_error(
        error_class(error),
        message,
        provider=PROVIDER,
        body=dict(payload),
        unknown=f"{message} ({dict(error)!r})",
        status=code if isinstance(code, int) else None,
        retry_after=retry_delay(error),
    )
