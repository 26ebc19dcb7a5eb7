"""Ollama's errors: HTTP error bodies and ``{"error"}`` lines inside a 200 stream.

This module owns the mapping to the exception tree and the hints that say how to fix the
common failures (a model without tools, a model not pulled, a base URL ending in ``/v1``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ... import _errors as errors
from .._base import error_class_for_status, in_stream_error, make_error, parse_json_body
from .._errorbody import loose_message
from ._defaults import DEFAULT_BASE_URL, NAME

__all__ = ["error_from_response", "stream_error"]

_MODEL_NOT_FOUND = re.compile(r"model ['\"]?([^'\"\s]+?)['\"]? not found")


def _error_message(parsed: Any, status: int) -> str:
    if isinstance(parsed, dict):
        error = parsed.get("error")
        if isinstance(error, dict):
            error = error.get("message")
        if error:
            return str(error)
    return loose_message(parsed) or f"HTTP {status}"


def _with_hint(status: int, message: str) -> str:
    lowered = message.lower()
    if "does not support tools" in lowered:
        return (
            f"{message}: this model cannot call functions; use a tool-capable model "
            "(e.g. qwen3 or llama3.1, see https://ollama.com/search?c=tools)"
        )
    if "does not support thinking" in lowered:
        return f"{message}: leave the thinking option unset for this model"
    found = _MODEL_NOT_FOUND.search(message)
    if status == 404 and found:
        return f"{message} (run `ollama pull {found.group(1)}`)"
    if status == 404:  # not a model: the path is wrong, e.g. a base URL ending in /v1
        return f"{message} (base_url must be the server root, like {DEFAULT_BASE_URL})"
    if status == 401:
        return f"{message} (ollama.com needs an API key: OLLAMA_API_KEY)"
    return message


def stream_error(line: Mapping[str, Any]) -> errors.AIWrapperError:
    """The exception for an ``{"error"}`` line inside a 200 stream."""
    message = _error_message(dict(line), 200)
    return in_stream_error(
        _stream_error_class(message.lower()),
        message,
        provider=NAME,
        body=line,
        unknown=f"Ollama reported an error mid-stream: {message}",
    )


def _stream_error_class(lowered: str) -> type[errors.ProviderError] | None:
    # The line has only a message: rate limits and overload are told by their words.
    if "rate limit" in lowered or "too many requests" in lowered:
        return errors.RateLimitError
    if "overloaded" in lowered or "server busy" in lowered:
        return errors.OverloadedError
    return None


def error_from_response(
    status: int, body: bytes, headers: Mapping[str, str]
) -> errors.ProviderError:
    """The exception for an HTTP error; the message says how to fix the common ones."""
    parsed = parse_json_body(body)
    message = _with_hint(status, _error_message(parsed, status))
    cls = error_class_for_status(status)
    return make_error(cls, message, provider=NAME, status=status, body=parsed, headers=headers)
