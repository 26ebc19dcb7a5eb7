"""A Responses request's ``input`` read into the neutral conversation.

``input`` is a string (one user message) or a list of items: messages in the easy form
(``role`` and string or part-list ``content``, ``type`` optional), and the items of earlier
turns a client echoes back: ``reasoning``, ``function_call`` (keyed by ``call_id``; the
``fc_`` item ``id`` means nothing to another backend and is dropped) and
``function_call_output``. Consecutive assistant-side items form one assistant turn, in their
order. Text and calls go through ``message_dicts``, the reader ``chat`` uses; images and
documents, in user messages and in ``function_call_output``, through ``_front_media.py``;
reasoning gets its backend state back from ``encrypted_content`` (``_front_items.py``). An
item type this gateway cannot send to every backend (stored ``item_reference``s, built-in
tool calls) is a 400 naming it, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._conversation._messages import LangMessage, LangMessages, messages_from_dict
from ..._errors import ConfigError
from .._serving import bad_request
from ._front_items import reasoning_part
from ._front_keys import check_item
from ._front_media import holds_media, read_parts

__all__ = ["read_input"]

_ROLES = ("user", "assistant", "system", "developer")


def read_input(raw: Any) -> LangMessages:
    """The conversation ``input`` holds, or a 400 naming the item at fault."""
    if isinstance(raw, str) and raw:
        return LangMessages([LangMessage.text("user", raw)])
    if not isinstance(raw, list) or not raw:
        raise bad_request("'input' must be a non-empty string or list of items", "input")
    out = LangMessages()
    for index, item in enumerate(raw):
        where = f"input[{index}]"
        try:
            messages = _item(item, where)
        except ConfigError as exc:
            raise bad_request(str(exc), where) from exc
        for message in messages:
            previous = out[-1] if out else None
            if message.role == "assistant" and previous and previous.role == "assistant":
                previous.parts.extend(message.parts)  # the same turn: reasoning, text, calls
            else:
                out.append(message)
    return out


def _item(item: Any, where: str) -> list[LangMessage]:
    if not isinstance(item, Mapping):
        raise bad_request("an input item must be an object", where)
    check_item(item, where)
    kind = item.get("type", "message")
    if kind == "message":
        return _message(item, where)
    if kind == "function_call":
        call = {"id": _string(item, "call_id", where), "function": _function(item, where)}
        return messages_from_dict({"role": "assistant", "tool_calls": [call]})
    if kind == "function_call_output":
        call_id = _string(item, "call_id", where)
        output = item.get("output")  # a string, or a list of input_text/image/file parts
        if holds_media(output):
            parts = read_parts(output, f"{where}.output")
            return [LangMessage("tool", parts, tool_call_id=call_id)]
        content = output if output is not None else ""
        return messages_from_dict({"role": "tool", "tool_call_id": call_id, "content": content})
    if kind == "reasoning":
        return _reasoning(item, where)
    raise bad_request(f"input items of type {kind!r} are not supported here", f"{where}.type")


def _message(item: Mapping[str, Any], where: str) -> list[LangMessage]:
    role = item.get("role")
    if role not in _ROLES:
        raise bad_request(f"role must be one of {', '.join(_ROLES)}", f"{where}.role")
    content = item.get("content")
    if content is None:
        raise bad_request("a message needs 'content'", f"{where}.content")
    if holds_media(content):
        if role != "user":  # the other roles' slots take text on most backends
            message = "images and documents are read in user messages and function_call_output"
            raise bad_request(message, f"{where}.content")
        return [LangMessage("user", read_parts(content, f"{where}.content"))]
    return messages_from_dict({"role": role, "content": content})


def _function(item: Mapping[str, Any], where: str) -> dict[str, str]:
    arguments = item.get("arguments", "")
    if not isinstance(arguments, str):
        raise bad_request("'arguments' must be JSON text", f"{where}.arguments")
    return {"name": _string(item, "name", where), "arguments": arguments}


def _reasoning(item: Mapping[str, Any], where: str) -> list[LangMessage]:
    summary = [_text(part) for part in _parts(item, "summary", where)]
    # The summary when there is one; else the raw reasoning text some servers send instead.
    texts = summary if any(summary) else [_text(part) for part in _parts(item, "content", where)]
    text = "\n\n".join(t for t in texts if t)
    part = reasoning_part(text, item.get("encrypted_content"))
    return [LangMessage("assistant", [part])] if part is not None else []


def _parts(item: Mapping[str, Any], key: str, where: str) -> list[Any]:
    parts = item.get(key)
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise bad_request(f"{key!r} must be a list of parts", f"{where}.{key}")
    return parts


def _text(part: Any) -> str:
    text = part.get("text") if isinstance(part, Mapping) else None
    return text if isinstance(text, str) else ""


def _string(item: Mapping[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise bad_request(f"{key!r} must be a non-empty string", f"{where}.{key}")
    return value
