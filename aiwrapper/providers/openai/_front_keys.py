"""The keys a Chat Completions client may set inside a message, a content part and a tool.

Every nested key is read, or refused with a 400 naming its path (``messages[0].foo``,
``tools[0].function.zzz``), never dropped. The keys the ``openai`` package writes when a
client sends back a ``ChatCompletionMessage`` it got (``refusal``, ``annotations``,
``audio``, ``function_call``, all null or empty on a replayed answer of this gateway) are
served when null or empty and refused by name when set. A message's ``name`` reaches only
tool results (some backends name the function a result answers); on any other message it is
refused when set. A tool's ``strict`` reaches the backend's strict mode, so it is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import refuse_extra
from .._serving import bad_request

__all__ = ["check_message", "check_tool"]

_MESSAGE = frozenset(
    {
        "role",
        "content",
        "name",
        "tool_calls",
        "tool_call_id",
        "thinking_blocks",
        "reasoning_content",
    }
)
_REPLAYED = {
    "refusal": "the refusal of a message is not sent on; send it as 'content'",
    "annotations": "annotations (web search citations) are not sent on",
    "audio": "answers are text",
    "function_call": "send 'tool_calls'",
}
_CITED = {"citations": "citations are not sent on", "context": "citations are not sent on"}
# Each part type the reader takes, and its keys (OpenAI parts, and the Anthropic-shaped blocks
# this gateway's own answers hold in ``thinking_blocks``).
_PARTS = {
    "text": frozenset({"type", "text", "cache_control"}),
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text", "annotations", "logprobs"}),
    "refusal": frozenset({"type", "refusal"}),
    "image_url": frozenset({"type", "image_url"}),
    "file": frozenset({"type", "file"}),
    "input_audio": frozenset({"type", "input_audio"}),  # refused by type where it is read
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
    "image": frozenset({"type", "source", "cache_control"}),
    "document": frozenset({"type", "source", "cache_control", "title"}),
}
_INNER = {
    "image_url": frozenset({"url", "detail"}),
    "file": frozenset({"file_data", "file_id", "filename"}),
}
_CALL = frozenset({"id", "type", "function", "index"})  # index: kept by stream accumulators
_FUNCTION_CALL = frozenset({"name", "arguments"})
_TOOL = frozenset({"type", "function"})
_FUNCTION = frozenset({"name", "description", "parameters", "strict"})


def check_message(message: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of ``message``, its parts or its calls that is not read."""
    refuse_extra(message, _MESSAGE, where, _REPLAYED)
    name = message.get("name")
    if name is not None and not isinstance(name, str):
        raise bad_request(f"'{where}.name' must be a string", f"{where}.name")
    if name and message.get("role") != "tool":
        reason = "is not supported by this gateway: not every backend takes a speaker's name"
        raise bad_request(f"'{where}.name' {reason}; put it in the content", f"{where}.name")
    content = message.get("content")
    for index, part in enumerate(content if isinstance(content, list) else ()):
        if isinstance(part, Mapping):
            _check_part(part, f"{where}.content[{index}]")
    blocks = message.get("thinking_blocks")
    for index, part in enumerate(blocks if isinstance(blocks, list) else ()):
        if isinstance(part, Mapping):
            _check_part(part, f"{where}.thinking_blocks[{index}]")
    calls = message.get("tool_calls")
    for index, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, Mapping):
            at = f"{where}.tool_calls[{index}]"
            refuse_extra(call, _CALL, at)
            if isinstance(call.get("function"), Mapping):
                refuse_extra(call["function"], _FUNCTION_CALL, f"{at}.function")


def _check_part(part: Mapping[str, Any], where: str) -> None:
    kind = part.get("type", "text")
    known = _PARTS.get(kind) if isinstance(kind, str) else None
    if known is None:
        return  # an unknown type: the reader refuses it by name
    refuse_extra(part, known, where, _CITED if kind in ("text", "document") else None)
    inner = part.get(kind)
    if kind in _INNER and isinstance(inner, Mapping):
        refuse_extra(inner, _INNER[kind], f"{where}.{kind}")


def check_tool(entry: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of a tool declaration (or of its function) not read."""
    refuse_extra(entry, _TOOL, where)
    function = entry.get("function")
    if isinstance(function, Mapping):
        refuse_extra(function, _FUNCTION, f"{where}.function")
        if not isinstance(function.get("strict"), (bool, type(None))):
            at = f"{where}.function.strict"
            raise bad_request(f"{at!r} must be true or false", at)
