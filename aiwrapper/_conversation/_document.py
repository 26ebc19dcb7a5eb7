"""The conversation as a versioned JSON document that keeps everything, and read back.

``{"aiwrapper": 1, "messages": [...]}``: each message its ``role``, its ``parts`` in order
and, for tool results, ``tool_call_id``, ``name``, ``is_error`` and ``error_type``. Each part
keeps its type (text, thinking, tool call, opaque block with its ``kind`` and ``problem``,
image or document) and the opaque ``state`` a provider attached to it (signatures, redacted
or encrypted reasoning, thought signatures, server-tool blocks, cache markers), verbatim; each
call its id, name, arguments (parsed and as the model wrote them), provider, status, result,
error and whether its id was made up. So a conversation read back sends the very bytes the
original would, to every provider. ``LangMessage.to_dict`` is the portable form, which drops
all of that.

This module writes messages (any objects with a message's fields) and reads a document into
the fields that build each ``LangMessage``; building the messages stays in ``_messages.py``,
which stands above this module. The values inside the parts are ``_document_values.py``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Protocol, get_args

from .._errors import ConfigError
from .._wire._jsontext import loads_standard
from ._call import CallStatus, FunctionCall
from ._document_values import (
    Fail,
    fields_of,
    kind_of,
    plain,
    read_media,
    read_result,
    unreadable,
    unwritable,
    write_media,
    write_result,
)
from ._message_dicts import MessageFields
from ._parts import (
    MediaPart,
    OpaquePart,
    Part,
    ProviderState,
    Role,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)

__all__ = ["VERSION", "document_json", "messages_to_jsonable", "read_document", "read_json"]

VERSION = 1  # raised whenever a field is added: a reader refuses what it does not know

_ROLES = get_args(Role)
_STATUSES = get_args(CallStatus)
_SURROGATE = re.compile("[\ud800-\udfff]")


class _Message(Protocol):
    """What is written of a message (``LangMessage``, which stands above this module)."""

    @property
    def role(self) -> Role: ...
    @property
    def parts(self) -> list[Part]: ...
    @property
    def tool_call_id(self) -> str | None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def error_type(self) -> str | None: ...


# --- writing -----------------------------------------------------------------------------


def messages_to_jsonable(messages: Iterable[_Message]) -> dict[str, Any]:
    """The conversation as a document of plain JSON data, sharing nothing with it.

    Raises:
        ConfigError: Something in it is not JSON data (provider state or arguments holding
            a NaN, say), naming where. A call's ``result`` never fails: see ``write_result``.
    """
    written = [_write_message(m, f"messages[{i}]") for i, m in enumerate(messages)]
    return {"aiwrapper": VERSION, "messages": written}


def document_json(document: dict[str, Any]) -> str:
    """A document as compact JSON text (non-ASCII text as is, unless it holds a lone
    surrogate, which only an escape can carry)."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if not text.isascii() and _SURROGATE.search(text):
        return json.dumps(document, separators=(",", ":"), allow_nan=False)
    return text


def _write_message(message: _Message, path: str) -> dict[str, Any]:
    if message.role not in _ROLES:
        raise unwritable(f"{path}.role", f"{message.role!r:.40} is not a role")
    parts = message.parts
    out: dict[str, Any] = {
        "role": message.role,
        "parts": [_write_part(p, f"{path}.parts[{j}]") for j, p in enumerate(parts)],
    }
    for key in ("tool_call_id", "name", "error_type"):
        value = getattr(message, key)
        if value is not None:
            out[key] = _text(value, f"{path}.{key}", unwritable)
    if message.is_error:
        out["is_error"] = True
    return out


def _write_part(part: Part, path: str) -> dict[str, Any]:
    out: dict[str, Any]
    if type(part) is TextPart or type(part) is ThinkingPart:
        kind = "text" if type(part) is TextPart else "thinking"
        out = {"type": kind, "text": _text(part.text, f"{path}.text", unwritable)}
    elif type(part) is ToolCallPart:
        out = {"type": "tool_call", "call": _write_call(part.call, f"{path}.call")}
    elif type(part) is OpaquePart:
        out = {"type": "opaque", "kind": part.kind}
        if part.problem is not None:
            out["problem"] = part.problem
    elif type(part) is MediaPart:
        out = {"type": "media", **write_media(part.media)}
    else:
        raise unwritable(path, f"{type(part).__name__} is not a part this version knows")
    if part.state is not None:
        out["state"] = _write_state(part.state, f"{path}.state")
    return out


def _write_state(state: ProviderState, path: str) -> dict[str, Any]:
    provider = _text(state.provider, f"{path}.provider", unwritable)
    if not isinstance(state.data, dict):
        raise unwritable(f"{path}.data", f"expected an object, not {kind_of(state.data)}")
    return {"provider": provider, "data": plain(state.data, f"{path}.data", unwritable)}


def _write_call(call: FunctionCall, path: str) -> dict[str, Any]:
    if not isinstance(call.arguments, dict):
        raise unwritable(f"{path}.arguments", f"expected an object, not {kind_of(call.arguments)}")
    out: dict[str, Any] = {
        "id": _text(call.id, f"{path}.id", unwritable),
        "name": _text(call.name, f"{path}.name", unwritable),
        "arguments": plain(call.arguments, f"{path}.arguments", unwritable),
        "raw_arguments": _text(call.raw_arguments, f"{path}.raw_arguments", unwritable),
        "status": call.status,
    }
    if call.provider is not None:
        out["provider"] = _text(call.provider, f"{path}.provider", unwritable)
    result = write_result(call.result, f"{path}.result")
    if result is not None:
        out["result"] = result
    if call.error is not None:
        out["error"] = _text(call.error, f"{path}.error", unwritable)
    if call.synthetic_id:
        out["synthetic_id"] = True
    return out


def _text(value: object, path: str, fail: Fail) -> str:
    if not isinstance(value, str):
        raise fail(path, f"expected a string, not {kind_of(value)}")
    return value if type(value) is str else str(value)


# --- reading -----------------------------------------------------------------------------


def read_json(text: str | bytes | bytearray) -> list[MessageFields]:
    """The messages of a document given as JSON text.

    Raises:
        ConfigError: The text is not standard JSON, or not a document (see
            ``read_document``).
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise ConfigError(f"a conversation document is JSON text, not {type(text).__name__}")
    try:
        document = loads_standard(bytes(text) if isinstance(text, bytearray) else text)
    except ValueError as exc:  # also a number too long to read, or nesting past the parser
        raise ConfigError(f"a conversation document must be JSON text: {exc}") from exc
    return read_document(document)


def read_document(document: object) -> list[MessageFields]:
    """The fields of each message of a document (the plain data ``messages_to_jsonable``
    makes).

    Raises:
        ConfigError: A document of a newer version, or one that is malformed (a wrong
            type, a missing or unknown key, a value nested too deeply), naming where.
    """
    if not isinstance(document, dict) or "aiwrapper" not in document:
        raise ConfigError(
            "not a conversation document: expected an object with an 'aiwrapper' version "
            "(as LangMessages.to_jsonable writes), not "
            f"{kind_of(document) if not isinstance(document, dict) else 'another object'}"
        )
    _check_version(document["aiwrapper"])
    messages = fields_of(document, "document", ("aiwrapper", "messages"))["messages"]
    if not isinstance(messages, list):
        raise unreadable("messages", f"expected a list, not {kind_of(messages)}")
    return [_read_message(m, f"messages[{i}]") for i, m in enumerate(messages)]


def _check_version(version: object) -> None:
    if type(version) is not int or version < 1:
        raise unreadable("aiwrapper", f"the version must be a whole number, not {version!r:.40}")
    if version > VERSION:
        raise ConfigError(
            f"this conversation document is of version {version}, written by a newer "
            f"aiwrapper; this one reads version {VERSION}: upgrade aiwrapper to read it"
        )


_MESSAGE_OPTIONAL = ("tool_call_id", "name", "is_error", "error_type")


def _read_message(value: object, path: str) -> MessageFields:
    fields = fields_of(value, path, ("role", "parts"), _MESSAGE_OPTIONAL)
    role = fields["role"]
    if role not in _ROLES:
        raise unreadable(f"{path}.role", f"expected one of {', '.join(_ROLES)}, not {role!r:.40}")
    parts = fields["parts"]
    if not isinstance(parts, list):
        raise unreadable(f"{path}.parts", f"expected a list, not {kind_of(parts)}")
    is_error = _flag(fields, "is_error", path)
    return MessageFields(
        role=role,
        parts=[_read_part(p, f"{path}.parts[{j}]") for j, p in enumerate(parts)],
        tool_call_id=_optional_text(fields, "tool_call_id", path),
        name=_optional_text(fields, "name", path),
        is_error=is_error,
        error_type=_optional_text(fields, "error_type", path),
    )


def _read_part(value: object, path: str) -> Part:
    if not isinstance(value, dict):
        raise unreadable(path, f"expected an object, not {kind_of(value)}")
    kind = value.get("type")
    reader = _PART_READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        known = ", ".join(_PART_READERS)
        raise unreadable(f"{path}.type", f"expected one of {known}, not {kind!r:.40}")
    return reader(value, path)


def _read_text(value: dict[str, Any], path: str) -> Part:
    fields = fields_of(value, path, ("type", "text"), ("state",))
    text = _text(fields["text"], f"{path}.text", unreadable)
    cls = TextPart if fields["type"] == "text" else ThinkingPart
    return cls(text, _read_state(fields.get("state"), f"{path}.state"))


def _read_call_part(value: dict[str, Any], path: str) -> Part:
    fields = fields_of(value, path, ("type", "call"), ("state",))
    call = _read_call(fields["call"], f"{path}.call")
    return ToolCallPart(call, _read_state(fields.get("state"), f"{path}.state"))


def _read_opaque(value: dict[str, Any], path: str) -> Part:
    fields = fields_of(value, path, ("type", "kind", "state"), ("problem",))
    kind = fields["kind"]
    if kind not in ("thinking", "raw"):
        raise unreadable(f"{path}.kind", f"expected 'thinking' or 'raw', not {kind!r:.40}")
    state = _read_state(fields["state"], f"{path}.state")
    if state is None:
        raise unreadable(f"{path}.state", "an opaque part holds its block here")
    return OpaquePart(state, kind, _optional_text(fields, "problem", path))


def _read_media_part(value: dict[str, Any], path: str) -> Part:
    media = read_media({k: v for k, v in value.items() if k not in ("type", "state")}, path)
    return MediaPart(media, _read_state(value.get("state"), f"{path}.state"))


_PART_READERS = {
    "text": _read_text,
    "thinking": _read_text,
    "tool_call": _read_call_part,
    "opaque": _read_opaque,
    "media": _read_media_part,
}


def _read_state(value: object, path: str) -> ProviderState | None:
    if value is None:
        return None
    fields = fields_of(value, path, ("provider", "data"))
    data = fields["data"]
    if not isinstance(data, dict):
        raise unreadable(f"{path}.data", f"expected an object, not {kind_of(data)}")
    provider = _text(fields["provider"], f"{path}.provider", unreadable)
    return ProviderState(provider, plain(data, f"{path}.data", unreadable))


_CALL_REQUIRED = ("id", "name", "arguments", "raw_arguments", "status")
_CALL_OPTIONAL = ("provider", "result", "error", "synthetic_id")


def _read_call(value: object, path: str) -> FunctionCall:
    fields = fields_of(value, path, _CALL_REQUIRED, _CALL_OPTIONAL)
    arguments = fields["arguments"]
    if not isinstance(arguments, dict):
        raise unreadable(f"{path}.arguments", f"expected an object, not {kind_of(arguments)}")
    status = fields["status"]
    if status not in _STATUSES:
        shown = ", ".join(_STATUSES)
        raise unreadable(f"{path}.status", f"expected one of {shown}, not {status!r:.40}")
    synthetic = _flag(fields, "synthetic_id", path)
    result = fields.get("result")
    return FunctionCall(
        id=_text(fields["id"], f"{path}.id", unreadable),
        name=_text(fields["name"], f"{path}.name", unreadable),
        arguments=plain(arguments, f"{path}.arguments", unreadable),
        raw_arguments=_text(fields["raw_arguments"], f"{path}.raw_arguments", unreadable),
        provider=_optional_text(fields, "provider", path),
        status=status,
        result=None if result is None else read_result(result, f"{path}.result"),
        error=_optional_text(fields, "error", path),
        synthetic_id=synthetic,
    )


def _flag(fields: dict[str, Any], key: str, path: str) -> bool:
    value = fields.get(key, False)
    if not isinstance(value, bool):
        raise unreadable(f"{path}.{key}", f"expected true or false, not {kind_of(value)}")
    return value


def _optional_text(fields: dict[str, Any], key: str, path: str) -> str | None:
    value = fields.get(key)
    return None if value is None else _text(value, f"{path}.{key}", unreadable)
