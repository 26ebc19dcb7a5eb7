"""The GenAI semantic conventions' attributes of a model request, and of the messages it carries.

Plain functions from a ``ProviderRequest``, an assembled turn or a call to attribute values;
no OpenTelemetry import (``_telemetry_run.py`` puts them on spans). Message content follows the
conventions' JSON shapes (``gen_ai.input.messages``, ``gen_ai.output.messages``,
``gen_ai.system_instructions``): a list of ``{"role", "parts"}`` with typed parts. It is built
only when the application asked for content to be captured.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._conversation._content import labelled_text
from .._conversation._messages import LangMessage
from .._conversation._parts import MediaPart, TextPart, ThinkingPart, ToolCallPart

if TYPE_CHECKING:
    from ._contract import ProviderRequest

__all__ = [
    "content_json",
    "input_content",
    "output_content",
    "request_attributes",
]


def request_attributes(provider: str, request: ProviderRequest) -> dict[str, Any]:
    """The attributes a model request's span starts with: what was asked, and how."""
    options = request.options
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": request.model,
    }
    if options.temperature is not None:
        attributes["gen_ai.request.temperature"] = float(options.temperature)
    if options.top_p is not None:
        attributes["gen_ai.request.top_p"] = float(options.top_p)
    if options.max_tokens is not None:
        attributes["gen_ai.request.max_tokens"] = options.max_tokens
    if options.stop is not None:
        stop = [options.stop] if isinstance(options.stop, str) else list(options.stop)
        attributes["gen_ai.request.stop_sequences"] = stop
    return attributes


def input_content(messages: Sequence[LangMessage]) -> dict[str, str]:
    """``gen_ai.system_instructions`` and ``gen_ai.input.messages`` of a request."""
    system = [part for m in messages if m.role == "system" for part in _parts(m)]
    others = [_message(m) for m in messages if m.role != "system"]
    attributes = {"gen_ai.input.messages": content_json(others)}
    if system:
        attributes["gen_ai.system_instructions"] = content_json(system)
    return attributes


def output_content(message: LangMessage, finish_reason: str) -> str:
    """``gen_ai.output.messages`` of an assembled turn."""
    return content_json([{**_message(message), "finish_reason": finish_reason}])


def content_json(value: Any) -> str:
    """Content as the conventions' JSON string (whatever does not encode, as its text)."""
    return json.dumps(value, ensure_ascii=False, default=str)


def _message(message: LangMessage) -> dict[str, Any]:
    if message.role == "tool":
        response = {"type": "tool_call_response", "id": message.tool_call_id}
        return {"role": "tool", "parts": [{**response, "response": _response(message)}]}
    return {"role": message.role, "parts": _parts(message)}


def _response(message: LangMessage) -> str:
    """A tool result's text; its images and documents as labels (type and size, no bytes)."""
    if not any(isinstance(p, MediaPart) for p in message.parts):
        return message.content
    return labelled_text(message.parts)


def _parts(message: LangMessage) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            parts.append({"type": "text", "content": part.text})
        elif isinstance(part, ThinkingPart):
            parts.append({"type": "reasoning", "content": part.text})
        elif isinstance(part, ToolCallPart):
            call = part.call
            tool_call = {"type": "tool_call", "id": call.id, "name": call.name}
            parts.append({**tool_call, "arguments": call.arguments})
        elif isinstance(part, MediaPart):  # the bytes stay out: a trace is no image store
            parts.append({"type": part.media.kind, "mime_type": part.media.media_type})
    return parts  # opaque provider blocks (signatures, server tools) are not content
