"""What a tool call produced, and the tool-result message that carries it to the model."""

from __future__ import annotations

from typing import Any

from .._conversation._media import Media
from .._conversation._messages import LangMessage, TextPart
from .._conversation._result import FunctionCall
from .._tools import ToolContent, media_content, serialize_result
from .._wire._sizelimits import clip_text
from ._steps import ToolOutcome

__all__ = ["failed", "outcome_of", "result_message"]


def outcome_of(call: FunctionCall, value: Any) -> ToolOutcome:
    """The outcome of a call that returned ``value``; the call is marked done."""
    if isinstance(value, ToolContent):  # written for the model already (MCP results)
        call.result, call.status = value.value, "done"
        return content_outcome(value)
    call.result, call.status = value, "done"
    content = media_content(value) if isinstance(value, (Media, list, tuple)) else None
    if content is not None:
        return content_outcome(content)
    return ToolOutcome(serialize_result(value))


def failed(call: FunctionCall, exc: BaseException) -> ToolOutcome:
    """The outcome of a call that raised ``exc``; the call is marked failed."""
    name, detail = type(exc).__name__, str(exc)
    call.status, call.error = "error", f"{name}: {detail}" if detail else name
    return ToolOutcome(call.error, True, name)


def content_outcome(content: ToolContent) -> ToolOutcome:
    """The outcome of a call whose result is written for the model already."""
    if not content.has_media:
        return ToolOutcome(content.text)
    return ToolOutcome(content.text, parts=content.parts)


def result_message(call: FunctionCall, outcome: ToolOutcome, limit: int) -> LangMessage:
    """The tool-result message of ``outcome``, each text clipped to ``limit`` characters."""
    parts = outcome.parts
    if parts is not None:  # each text clipped alone: the images and documents stay whole
        parts = tuple(
            TextPart(clip_text(p.text, limit)) if isinstance(p, TextPart) else p for p in parts
        )
    return LangMessage.tool_result(
        call,
        clip_text(outcome.content, limit),  # a huge result must not flood the model's context
        is_error=outcome.is_error,
        error_type=outcome.error_type,
        parts=parts,
    )
