"""Errors of the Responses API that arrive inside a 200 answer.

HTTP error bodies have the Chat Completions envelope (``{"error": {"message", "type",
"param", "code"}}``), so the provider maps them with the Chat Completions code. This module
reads the two in-stream forms: an ``error`` event and a terminal ``response.failed``. Both
end in the shared Chat Completions mapping from ``code``/``type`` to the exception tree.
"""

from __future__ import annotations

from typing import Any

from ... import _errors as errors
from ..openai._errors import stream_error

__all__ = ["error_event", "failed_response"]


def error_event(provider: str, payload: dict[str, Any]) -> errors.AIWrapperError:
    """The exception for an ``error`` event, flat or nested.

    The documented event is flat (``{"type": "error", "code", "message", "param"}``), but
    OpenAI often sends the error object nested under ``error``; both are read.
    """
    inner = payload.get("error")
    return stream_error(provider, inner if isinstance(inner, dict) else payload)


def failed_response(provider: str, response: dict[str, Any]) -> errors.AIWrapperError:
    """The exception for a ``response.failed`` event or a whole body whose status is failed.

    ``response.error`` holds ``{"code", "message"}`` (``server_error``, ``rate_limit_exceeded``
    ...); a failed response without one is still an error.
    """
    error = response.get("error")
    if not isinstance(error, dict):
        error = {"message": "the response failed without saying why"}
    return stream_error(provider, error)
