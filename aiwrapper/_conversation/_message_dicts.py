"""Message dicts given to ``chat``: OpenAI's and Anthropic's shapes read into ``LangMessage``.

``content`` may be a string or a content list: OpenAI parts (``text``, ``refusal``,
``image_url``, ``file``) or Anthropic blocks (``text``, ``image``, ``document``,
``thinking``, ``redacted_thinking``, ``tool_use``, ``tool_result``); images and documents,
read by ``_media_dicts``, may stand in any message but a system one, and inside a
``tool_result``. An Anthropic user message holding ``tool_result`` blocks becomes one
``tool`` message per result (and a user message for any text beside them), which is how the
conversation is kept here. A block that cannot be read (an unknown type, an image whose bytes
are not what it says) is a ``ConfigError`` naming the part: a conversation given by the user
is never silently shortened. A block's
``cache_control`` (a cache breakpoint the user placed on a text, ``tool_use`` or
``tool_result`` block) rides on its part as Anthropic state, for Anthropic's encoder only.
The reader yields each message's fields, built of plain parts: building ``LangMessage``s from
them, and writing messages back as dicts, stays in ``_messages.py``, which stands above this
module.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any, TypeGuard

from typing_extensions import NotRequired, TypedDict

from .._errors import ConfigError
from .._wire._jsontext import dumps_compact, loads_standard
from ._call import FunctionCall
from ._media_dicts import MEDIA_BLOCKS, read_media
from ._parts import OpaquePart, Part, ProviderState, Role, TextPart, ThinkingPart, ToolCallPart

__all__ = ["MessageFields", "read_message_dict"]

_ROLES = ("system", "developer", "user", "assistant", "tool")
_TEXT_KEYS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
_ANTHROPIC = "anthropic"  # thinking signatures and redacted blocks are Anthropic's own state
_STRING_FIELDS = ("tool_call_id", "name", "thinking", "error_type")
# repr cut short as it is built: a few levels, a few items, strings clipped.
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60


class MessageFields(TypedDict):
    """One message as read from a dict: the arguments that build its ``LangMessage``."""

    role: Role
    parts: list[Part]
    tool_call_id: NotRequired[str | None]
    name: NotRequired[str | None]
    is_error: NotRequired[bool]
    error_type: NotRequired[str | None]


def read_message_dict(data: Mapping[str, Any]) -> list[MessageFields]:
    """The messages one dict holds (several for an Anthropic user turn of tool results).

    Raises:
        ConfigError: An unknown role, a field of the wrong type, a message other than the
            assistant's without ``content``, a block or part that cannot be read, a tool call
            without id or name, or a tool message without ``tool_call_id``.
    """
    role = _checked_role(data)
    parts: list[Part] = []
    if data.get("thinking"):
        parts.append(ThinkingPart(data["thinking"]))
    out: list[MessageFields] = []
    for index, block in enumerate(_content_blocks(data.get("content"))):
        if block.get("type") == "tool_result" and role == "user":
            out.append(_tool_result(block, f"content part {index}"))
        else:
            parts.append(_part(block, role, f"content part {index}"))
    for raw in data.get("tool_calls") or ():
        parts.append(ToolCallPart(_call_from_dict(raw)))
    message = MessageFields(
        role=role,
        parts=_joined(parts),
        tool_call_id=data.get("tool_call_id"),
        name=data.get("name"),
        is_error=data.get("is_error", False),
        error_type=data.get("error_type"),
    )
    if out and not message["parts"]:  # a turn of results alone: no empty user message after
        return out
    return [*out, message]


def _checked_role(data: Mapping[str, Any]) -> Role:
    """The dict's role, once every field read beside the content has its JSON type."""
    role = data.get("role")
    if not isinstance(role, str) or role not in _ROLES:
        raise ConfigError(f"message role must be system, user, assistant or tool, not {role!r}")
    for key in _STRING_FIELDS:
        if not isinstance(data.get(key), (str, type(None))):
            raise ConfigError(f"{key!r} must be a string, not {_shown(data[key])}")
    if not isinstance(data.get("is_error", False), bool):
        raise ConfigError(f"'is_error' must be true or false, not {_shown(data['is_error'])}")
    calls = data.get("tool_calls")
    if calls is not None and not _is_list_of_objects(calls):
        raise ConfigError(f"'tool_calls' must be a list of tool calls, not {_shown(calls)}")
    if role == "tool" and not data.get("tool_call_id"):
        raise ConfigError("a tool message needs the 'tool_call_id' of the call it answers")
    # Only the assistant may say nothing (its turn can be calls alone); every server refuses
    # the others, so the mistake is told here rather than by the provider after a round trip.
    if role != "assistant" and data.get("content") is None:
        raise ConfigError(f"a {role} message needs 'content' (a string or a list of blocks)")
    return "system" if role == "developer" else role  # type: ignore[return-value]


def _is_list_of_objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, Mapping) for item in value)


def _shown(value: Any) -> str:
    """A wrong value for an error message, kept short: the dict may be a client's whole body,
    a base64 image of megabytes, or nested deeper than ``repr`` can go."""
    return f"{_SHORT.repr(value):.100}"


def _content_blocks(content: Any) -> list[Mapping[str, Any]]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if _is_list_of_objects(content):
        return content  # type: ignore[no-any-return]
    raise ConfigError(
        f"'content' must be a string or a list of content blocks (objects), not {_shown(content)}"
    )


def _part(block: Mapping[str, Any], role: str, where: str) -> Part:
    kind = block.get("type", "text" if "text" in block else None)  # {"text": ...} alone
    kind = kind if isinstance(kind, str) else None
    if kind in MEDIA_BLOCKS and role != "system":
        try:
            return read_media(block, kind)
        except ConfigError as exc:
            raise ConfigError(f"{where} ({kind}): {exc}") from exc
    if kind in _TEXT_KEYS:
        return TextPart(_string(block, _TEXT_KEYS[kind]), _breakpoint(block))
    if role == "assistant" and kind == "thinking":
        signature = block.get("signature")
        if not isinstance(signature, (str, type(None))):
            raise ConfigError(f"a thinking block's 'signature' must be a string: {_shown(block)}")
        state = ProviderState(_ANTHROPIC, {"signature": signature}) if signature else None
        return ThinkingPart(_string(block, "thinking"), state)
    if role == "assistant" and kind == "redacted_thinking":
        return OpaquePart(ProviderState(_ANTHROPIC, {"block": dict(block)}), kind="thinking")
    if role == "assistant" and kind == "tool_use":
        marker = _breakpoint(block)
        state = ProviderState(_ANTHROPIC, {"extra": marker.data}) if marker else None
        return ToolCallPart(_call_from_dict(block, provider=_ANTHROPIC), state)
    raise ConfigError(
        f"this {role} message holds a content block that cannot be read here: "
        f"{_shown(dict(block))} "
        "(text, image, document, thinking, tool_use and tool_result blocks are read)"
    )


def _breakpoint(block: Mapping[str, Any]) -> ProviderState | None:
    """A cache breakpoint the user placed on a block, kept for Anthropic's encoder."""
    marker = block.get("cache_control")
    return ProviderState(_ANTHROPIC, {"cache_control": marker}) if marker is not None else None


def _string(block: Mapping[str, Any], key: str) -> str:
    value = block.get(key)
    if not isinstance(value, str):
        raise ConfigError(
            f"a {block.get('type')!r:.40} block needs a string {key!r}: {_shown(block)}"
        )
    return value


def _joined(parts: list[Part]) -> list[Part]:
    """Consecutive text parts as one, the way a streamed turn keeps them."""
    out: list[Part] = []
    for part in parts:
        previous = out[-1] if out else None
        if _plain(part) and _plain(previous):  # a text with a breakpoint keeps its block
            previous.text += part.text
        else:
            out.append(part)
    return out


def _plain(part: Part | None) -> TypeGuard[TextPart]:
    return type(part) is TextPart and part.state is None


def _tool_result(block: Mapping[str, Any], where: str) -> MessageFields:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        raise ConfigError(f"a tool_result block needs its 'tool_use_id': {_shown(dict(block))}")
    blocks = _content_blocks(block.get("content"))
    texts = [_part(b, "tool", f"{where} (tool_result), part {i}") for i, b in enumerate(blocks)]
    marker = _breakpoint(block)
    if marker is not None:  # the result's own breakpoint, on an empty part closing it
        texts.append(TextPart("", marker))
    return MessageFields(
        role="tool",
        parts=_joined(texts),
        tool_call_id=call_id,
        is_error=bool(block.get("is_error", False)),
    )


def _call_from_dict(raw: Mapping[str, Any], *, provider: str | None = None) -> FunctionCall:
    """An OpenAI ``tool_calls`` entry or an Anthropic ``tool_use`` block as a finished call."""
    fn = raw.get("function", raw)
    call_id, name = raw.get("id"), fn.get("name") if isinstance(fn, Mapping) else None
    if not (call_id and isinstance(call_id, str) and name and isinstance(name, str)):
        raise ConfigError(
            f"a tool call needs an 'id' and a function 'name', both strings: {_shown(dict(raw))}"
        )
    given = fn.get("arguments", raw.get("input", {}))
    arguments = _arguments(call_id, given)
    return FunctionCall(
        id=call_id,
        name=name,
        arguments=arguments,
        raw_arguments=given if isinstance(given, str) else _written(call_id, arguments),
        provider=provider,
        status="done",
    )


def _written(call_id: str, arguments: dict[str, Any]) -> str:
    try:
        return dumps_compact(arguments)
    except (ValueError, TypeError, RecursionError) as exc:  # NaN, a set, absurd nesting
        raise ConfigError(f"tool call {call_id!r} has arguments that are not JSON") from exc


def _arguments(call_id: str, given: Any) -> dict[str, Any]:
    """A call's arguments (JSON text or an object) as a dict."""
    value = given
    if isinstance(given, str):
        try:
            value = loads_standard(given) if given.strip() else {}
        except ValueError as exc:
            raise ConfigError(f"tool call {call_id!r} has arguments that are not JSON") from exc
    if not isinstance(value, Mapping):
        raise ConfigError(f"tool call {call_id!r} has arguments that are not a JSON object")
    return dict(value)
