"""The keys a Messages client may set inside a message, a content block and a tool.

Every nested key is read, or refused with a 400 naming its path (``messages[0].foo``,
``messages[0].content[1].bar``, ``tools[0].zzz``), never dropped. What the ``anthropic``
package writes when a client sends back the blocks it got (``citations``, ``caller``,
``toolset_name``, all null on this gateway's answers) is served when null or empty and
refused by name when set. Image and document blocks are checked where they are read
(``_front_media``). A tool's ``cache_control`` and ``eager_input_streaming`` are hints that
leave the answer as it is, so they are served; ``strict`` reaches the backend's strict mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._front_fields import refuse_extra
from .._serving import bad_request

__all__ = ["check_message", "check_system", "check_tool"]

_MESSAGE = frozenset({"role", "content"})
_BLOCKS = {
    "text": frozenset({"type", "text", "cache_control"}),
    "thinking": frozenset({"type", "thinking", "signature"}),
    "redacted_thinking": frozenset({"type", "data"}),
    "tool_use": frozenset({"type", "id", "name", "input", "cache_control"}),
    "tool_result": frozenset({"type", "tool_use_id", "content", "is_error", "cache_control"}),
}
_CALLER = "calls made by Anthropic's server tools are not sent on"
_REPLAYED = {
    "citations": "citations are not sent on",
    "caller": _CALLER,
    "toolset_name": _CALLER,
}
_TOOL = frozenset(
    {"type", "name", "description", "input_schema", "cache_control", "strict"}
    | {"eager_input_streaming"}
)
_TOOL_UNSUPPORTED = {
    "input_examples": "not every backend takes examples; put them in the description",
    "defer_loading": "tool search runs at Anthropic only",
    "allowed_callers": "code execution runs at Anthropic only",
}


def check_message(message: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of ``message`` or of its blocks that is not read."""
    refuse_extra(message, _MESSAGE, where)
    content = message.get("content")
    for index, block in enumerate(content if isinstance(content, list) else ()):
        if isinstance(block, Mapping):
            _check_block(block, f"{where}.content[{index}]")


def check_system(system: Any) -> None:
    """A 400 naming the first key of a ``system`` text block that is not read."""
    for index, block in enumerate(system if isinstance(system, list) else ()):
        if isinstance(block, Mapping) and block.get("type", "text") == "text":
            refuse_extra(block, _BLOCKS["text"], f"system[{index}]", _REPLAYED)


def _check_block(block: Mapping[str, Any], where: str) -> None:
    kind = block.get("type")
    known = _BLOCKS.get(kind) if isinstance(kind, str) else None
    if known is None:
        return  # images and documents, and unknown types: refused by name where read
    refuse_extra(block, known, where, _REPLAYED)
    inner = block.get("content")
    if kind == "tool_result" and isinstance(inner, list):
        for index, item in enumerate(inner):
            if isinstance(item, Mapping):
                _check_block(item, f"{where}.content[{index}]")


def check_tool(entry: Mapping[str, Any], where: str) -> None:
    """A 400 naming the first key of a tool declaration that is not read."""
    refuse_extra(entry, _TOOL, where, _TOOL_UNSUPPORTED)
    if not isinstance(entry.get("strict"), (bool, type(None))):
        raise bad_request(f"'{where}.strict' must be true or false", f"{where}.strict")
    if not isinstance(entry.get("eager_input_streaming"), (bool, type(None))):
        at = f"{where}.eager_input_streaming"
        raise bad_request(f"{at!r} must be true or false", at)
