"""OpenAI-compatible error bodies, in an HTTP error response or inside a 200 stream.

This module owns the error body shapes of the servers on this wire and their mapping to the
exception tree (``insufficient_quota`` is a 429 that retrying cannot fix; OpenRouter's 402 is
out of credits).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from .._base import error_class_for_status, in_stream_error, make_error, parse_json_body
from .._errorbody import loose_message

__all__ = ["error_fields", "error_from_response", "status_class", "stream_error"]


def error_fields(payload: Any) -> tuple[str, set[str]]:
    """The message of an error body and its lower-cased type/code tags.

    Shapes: OpenAI ``{"error": {"message", "type", "code"}}`` (OpenRouter: an int ``code`` and
    ``metadata``), vLLM/Mistral ``{"object": "error", "message", "type", "code"}`` (Mistral's
    message may be an object), FastAPI ``{"detail": ...}``, or a plain text/HTML page.
    """
    if isinstance(payload, str):
        return payload.strip()[:500], set()
    if not isinstance(payload, dict):
        return json.dumps(payload)[:500], set()
    inner = payload.get("error", payload)
    if not isinstance(inner, dict):
        return str(inner), set()
    message = inner.get("message")
    if message is None:  # not this wire's shape: a framework's (``detail``, ``validation``...)
        message = loose_message(inner)
    elif not isinstance(message, str):
        message = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    metadata = inner.get("metadata")
    if isinstance(metadata, dict) and metadata.get("provider_name"):
        message += f" (upstream provider: {metadata['provider_name']})"
    tags = {str(inner[k]).lower() for k in ("type", "code") if inner.get(k) is not None}
    return message, tags


def status_class(status: int) -> type[errors.ProviderError]:
    """The error class for an HTTP status on this wire.

    402 is OpenRouter's "out of credits": like Anthropic's 402
    ``billing_error`` it is a ``PermissionDeniedError``, which retrying cannot fix.
    """
    if status == 402:
        return errors.PermissionDeniedError
    return error_class_for_status(status)


def stream_error(provider: str, error: Any) -> errors.AIWrapperError:
    """The exception for an error object that arrived inside a 200 stream.

    A known ``type``/``code`` keeps its class (rate limit, overload, server error); an int
    ``code`` between 400 and 599 is read as an HTTP status, as OpenRouter and vLLM send it;
    anything else is a ``StreamError``.
    """
    message, tags = error_fields(error)
    return in_stream_error(
        _stream_error_class(error, " ".join(tags)),
        message or "error in stream",
        provider=provider,
        body=error,
        unknown=f"{provider}: error in stream: {message}",
    )


def _stream_error_class(error: Any, words: str) -> type[errors.ProviderError] | None:
    # too_many_requests: the Responses API's nested in-stream error for a rate limit.
    if "rate_limit" in words or "too_many_requests" in words or "insufficient_quota" in words:
        return errors.RateLimitError
    if "overloaded" in words:
        return errors.OverloadedError
    if "server_error" in words:
        return errors.ServerError
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600:
        return status_class(code)
    return None


def error_from_response(
    provider: str, status: int, body: bytes, headers: Mapping[str, str]
) -> errors.ProviderError:
    """The exception for an HTTP error response (``{"error": {...}}`` and variants)."""
    payload = parse_json_body(body)
    message, tags = error_fields(payload)
    # insufficient_quota is a 429 that retrying cannot fix.
    quota = "insufficient_quota" in tags
    if quota:
        message += " (quota exhausted: retrying will not help)"
    cls = status_class(status)
    if cls is errors.ServerError and "overloaded" in tags:
        cls = errors.OverloadedError
    err = make_error(
        cls,
        message or f"HTTP {status}",
        provider=provider,
        status=status,
        body=payload,
        headers=headers,
    )
    if quota:
        err.retry_after, err.retryable = None, False
    return err
