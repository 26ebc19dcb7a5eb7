"""Bedrock's errors: HTTP error answers and the exception events of a stream.

An error answer names its kind in the ``x-amzn-ErrorType`` header (``ValidationException:...``)
or the body's ``__type``, with the text in ``message`` (``Message`` on some services). Kinds map
to the exception tree before statuses do, since AWS answers a bad signature with 403, not 401.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from .._base import error_class_for_status, in_stream_error, make_error, parse_json_body
from .._errorbody import loose_message
from ._name import NAME

__all__ = ["error_from_response", "stream_error"]

_MOST_CHARS = 2000  # of an error's message: enough to say why, never a whole echoed body

_KINDS: dict[str, type[errors.ProviderError]] = {
    "throttlingexception": errors.RateLimitError,
    "servicequotaexceededexception": errors.RateLimitError,
    "serviceunavailableexception": errors.OverloadedError,
    "modelnotreadyexception": errors.OverloadedError,
    "validationexception": errors.BadRequestError,
    "accessdeniedexception": errors.PermissionDeniedError,
    "resourcenotfoundexception": errors.NotFoundError,
    "unrecognizedclientexception": errors.AuthenticationError,
    "invalidsignatureexception": errors.AuthenticationError,
    "expiredtokenexception": errors.AuthenticationError,
    "internalserverexception": errors.ServerError,
    "modelstreamerrorexception": errors.ServerError,
    "modelerrorexception": errors.ServerError,
    "modeltimeoutexception": errors.ServerError,
}


def _kind(headers: Mapping[str, str], parsed: Any) -> str:
    lowered = {k.lower(): v for k, v in headers.items()}
    kind = lowered.get("x-amzn-errortype") or (
        parsed.get("__type") if isinstance(parsed, dict) else None
    )
    # "ValidationException:http://internal.amazon.com/coral/..." or "com.amazon...#Validation..."
    return str(kind or "").split(":", 1)[0].rsplit("#", 1)[-1]


def _message(parsed: Any, status: int) -> str:
    if isinstance(parsed, dict):
        for key in ("message", "Message"):
            if isinstance(parsed.get(key), str) and parsed[key]:
                return str(parsed[key])[:_MOST_CHARS]
    found = loose_message(parsed)  # a proxy's or a framework's shape
    return found[:_MOST_CHARS] if found else f"HTTP {status}"


def error_from_response(
    status: int, body: bytes, headers: Mapping[str, str]
) -> errors.ProviderError:
    """The exception for an HTTP error answer."""
    parsed = parse_json_body(body)
    kind = _kind(headers, parsed)
    cls = _KINDS.get(kind.lower()) or error_class_for_status(status)
    message = f"{kind}: {_message(parsed, status)}" if kind else _message(parsed, status)
    return make_error(
        cls,
        message,
        provider=NAME,
        status=status,
        body=parsed,
        headers=headers,
        request_id_header="x-amzn-requestid",
    )


def stream_error(kind: str, payload: Mapping[str, Any]) -> errors.AIWrapperError:
    """The exception for an exception event (or an error message) inside a 200 stream."""
    code = payload.get("code") if kind == ":error" else kind
    message = str(payload.get("message") or payload.get("Message") or code or "an error")
    message = message[:_MOST_CHARS]
    return in_stream_error(
        _KINDS.get(str(code or "").lower()),
        message,
        provider=NAME,
        body=dict(payload),
        unknown=f"Bedrock reported an error mid-stream ({code}): {message}",
    )
