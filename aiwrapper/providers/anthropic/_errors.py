"""Anthropic's HTTP error bodies (``{"type": "error", "error": {"type", "message"}}``).

This module owns their mapping to the exception tree: the error type wins where it is more
precise than the status (a 500 that says ``overloaded_error`` is an overload; 402
``billing_error`` means the account may not use the API until billing is fixed, which retrying
cannot help), and the ``error`` events that arrive inside a 200 stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from .._base import error_class_for_status, in_stream_error, make_error, parse_json_body
from .._errorbody import loose_message
from ._name import NAME

__all__ = ["error_from_response", "stream_error"]


_TYPE_OVER_STATUS: dict[str, type[errors.ProviderError]] = {
    "overloaded_error": errors.OverloadedError,
    "rate_limit_error": errors.RateLimitError,
    "billing_error": errors.PermissionDeniedError,
}


def _error_detail(parsed: Any, status: int) -> tuple[str | None, str]:
    """The ``error.type`` and message of an error body (its text when it is not JSON)."""
    detail = parsed.get("error") if isinstance(parsed, dict) else None
    detail = detail if isinstance(detail, dict) else {}
    kind, message = detail.get("type"), detail.get("message")
    if not isinstance(message, str) or not message:
        message = loose_message(parsed)
    return (kind if isinstance(kind, str) else None), message or f"HTTP {status}"


def error_from_response(
    status: int, body: bytes, headers: Mapping[str, str]
) -> errors.ProviderError:
    """The exception for an error response, with the request id from header or body."""
    parsed = parse_json_body(body)
    kind, message = _error_detail(parsed, status)
    # The error type wins where it is more precise than the status (a 500 that says
    # overloaded_error is an overload; 402 billing_error has no status class of its own).
    cls = _TYPE_OVER_STATUS.get(str(kind)) or error_class_for_status(status)
    err = make_error(
        cls,
        message,
        provider=NAME,
        status=status,
        body=parsed,
        headers=headers,
        request_id_header="request-id",
    )
    if err.request_id is None and isinstance(parsed, dict):
        request_id = parsed.get("request_id")
        err.request_id = request_id if isinstance(request_id, str) else None
    return err


# The error classes of an ``error`` event inside a 200 stream.
_STREAM_ERRORS: dict[str, type[errors.ProviderError]] = {
    "invalid_request_error": errors.BadRequestError,
    "request_too_large": errors.BadRequestError,
    "authentication_error": errors.AuthenticationError,
    "permission_error": errors.PermissionDeniedError,
    "billing_error": errors.PermissionDeniedError,
    "not_found_error": errors.NotFoundError,
    "rate_limit_error": errors.RateLimitError,
    "api_error": errors.ServerError,
    "timeout_error": errors.ServerError,
    "overloaded_error": errors.OverloadedError,
}


def stream_error(payload: dict[str, Any]) -> errors.AIWrapperError:
    """The exception for an ``error`` event inside a 200 stream."""
    detail = payload.get("error") or {}
    kind, message = detail.get("type"), detail.get("message") or "stream error"
    request_id = payload.get("request_id")
    return in_stream_error(
        _STREAM_ERRORS.get(str(kind)),
        message,
        provider=NAME,
        body=payload,
        unknown=f"anthropic stream error ({kind}): {message}",
        request_id=request_id if isinstance(request_id, str) else None,
    )
