"""The keys a Responses client may set inside an input item, a content part and a tool.

Every nested key is read, or refused with a 400 naming its path (``input[0].foo``,
``input[1].content[0].bar``, ``tools[0].zzz``), never dropped. An item's ``id`` and
``status`` are served and left behind: the gateway keeps no items to look up. What the
``openai`` package writes when a client sends back the output items it got (``phase``,
``caller``, ``namespace``, ``annotations``, ``logprobs``: null or empty on this gateway's
answers) is served when null or empty and refused by name when set. A tool's ``strict``
reaches the backend's strict mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import refuse_extra
from .._serving import bad_request

__all__ = ["check_item", "check_tool"]

_SERVER = "calls made by OpenAI's server tools are not sent on"
_REPLAYED = {
    "phase": "message phases are OpenAI's own",
    "caller": _SERVER,
    "namespace": _SERVER,
    "async": _SERVER,
    "name": "a function_call_output is matched to its call by 'call_id'",
    "annotations": "annotations (web search citations) are not sent on",
    "logprobs": "logprobs are not sent on",
}
_ITEMS = {
    "message": frozenset({"type", "role", "content", "id", "status"}),
    "function_call": frozenset({"type", "call_id", "name", "arguments", "id", "status"}),
    "function_call_output": frozenset({"type", "call_id", "output", "id", "status"}),
    "reasoning": frozenset({"type", "id", "summary", "content", "encrypted_content", "status"}),
}
_PARTS = {
    "input_text": frozenset({"type", "text"}),
    "output_text": frozenset({"type", "text"}),
    "summary_text": frozenset({"type", "text"}),
    "reasoning_text": frozenset({"type", "text"}),
    "refusal": frozenset({"type", "refusal"}),
    "input_image": frozenset({"type", "image_url", "file_id", "detail"}),
    "input_file": frozenset({"type", "file_data", "file_id", "file_url", "filename", "detail"}),
}
_LISTS = ("content", "output", "summary")  # the keys of an item holding parts
_TOOL = frozenset({"type", "name", "description", "parameters", "strict"})
_TOOL_UNSUPPORTED = {
    "allowed_callers": "code execution runs at OpenAI only",
    "async": "calls are answered in the conversation",
    "defer_loading": "tool search runs at OpenAI only",
    "output_schema": "not every backend takes a tool's output schema",
}


def check_item(item: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of an input item, or of its parts, that is not read."""
    kind = item.get("type", "message")
    known = _ITEMS.get(kind) if isinstance(kind, str) else None
    if known is None:
        return  # an unknown type: refused by name where items are read
    refuse_extra(item, known, where, _REPLAYED)
    for key in _LISTS:
        parts = item.get(key)
        for index, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, Mapping):
                _check_part(part, f"{where}.{key}[{index}]")


def _check_part(part: Mapping[str, Any], where: str) -> None:
    kind = part.get("type")
    known = _PARTS.get(kind) if isinstance(kind, str) else None
    if known is not None:  # an unknown type is refused by name where parts are read
        refuse_extra(part, known, where, _REPLAYED)


def check_tool(entry: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of a function tool that is not read."""
    refuse_extra(entry, _TOOL, where, _TOOL_UNSUPPORTED)
    if not isinstance(entry.get("strict"), (bool, type(None))):
        raise bad_request(f"'{where}.strict' must be true or false", f"{where}.strict")
