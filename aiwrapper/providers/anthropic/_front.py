"""The Anthropic Messages front-end: ``POST /v1/messages``, streamed or not.

The reverse of this package's provider: a client's request is read into the neutral
conversation (content blocks through ``message_dicts``, the reader ``chat`` uses, images and
documents through ``_front_media``; ``system``, ``tools`` and ``tool_choice`` here) and the
outcome written back as a ``message`` body or the full event sequence (``message_start``,
blocks with their deltas, ``message_delta`` with the stop reason and usage, ``message_stop``).
Thinking blocks carry signatures only when the backend is Anthropic: any other signature would
be refused by Anthropic anyway.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from ..._conversation._messages import LangMessage, Part, TextPart, ThinkingPart
from ..._conversation._messages import ToolCallPart as CallPart
from ..._conversation._result import LangResult
from ..._errors import ConfigError
from .._callstate import packed_id, unpack_calls
from .._front_checks import check_body, check_schema
from .._front_fields import read_sampling, refuse_set, refuse_unknown, refuse_unless
from .._serving import (
    ClientRequest,
    ErrorKind,
    GatewayError,
    bad_request,
    check_number,
    check_type,
    read_route,
    read_tools,
)
from ._encode import wire_id
from ._front_keys import check_message, check_system, check_tool
from ._front_media import read_conversation
from ._front_options import check_options
from ._front_stream import EventEncoder, kept_block, signature, stop_reason, usage

__all__ = ["AnthropicMessages", "new_message_id"]

_ERROR_TYPES: dict[ErrorKind, str] = {
    "invalid_request": "invalid_request_error",
    "authentication": "authentication_error",
    "permission": "permission_error",
    "not_found": "not_found_error",
    "request_too_large": "request_too_large",
    "rate_limit": "rate_limit_error",
    "overloaded": "overloaded_error",
    "upstream": "api_error",
    "timeout": "timeout_error",
}
_CHOICES = {"auto": "auto", "any": "required", "none": "none"}
# Every request field of the wire: the ones read below, and the ones refused by _REFUSED.
_FIELDS = frozenset(
    {
        *("model", "messages", "max_tokens", "system", "tools", "tool_choice", "stream"),
        *("temperature", "top_p", "top_k", "stop_sequences", "thinking", "metadata"),
        *("service_tier", "container", "context_management", "mcp_servers"),
    }
)
_REFUSED = {
    "container": "code execution runs at Anthropic only",
    "context_management": "not every backend edits the context",
    "mcp_servers": "the MCP connector runs at Anthropic only",
}


class AnthropicMessages:
    """The Messages wire, as a server speaks it."""

    name = "anthropic"
    overloaded_status = 529

    def decode(self, body: Any) -> ClientRequest:
        """The request, or a 400 naming the field at fault."""
        check_body(body)
        route = read_route(body)
        refuse_unknown(body, _FIELDS)
        refuse_set(body, _REFUSED)
        refuse_unless(body, "service_tier", "auto")
        check_options(body)
        if check_number(body, "max_tokens", integer=True) is None:
            raise bad_request("'max_tokens' is required", "max_tokens")
        messages = read_conversation(body.get("messages"), _message)
        unpack_calls(messages)  # here, so that forged state is a 400 like any other field
        messages[:0] = _system(body.get("system"))
        return ClientRequest(
            route=route,
            messages=messages,
            options=_options(body),
            stream=bool(check_type(body, "stream", bool)),
        )

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        """The ``message`` body."""
        turn = result.messages[-1]
        content = [b for b in (_block(p) for p in turn.parts) if b is not None]
        return {
            "id": new_message_id(),
            "type": "message",
            "role": "assistant",
            "model": request.route,
            "content": content,
            "stop_reason": stop_reason(result),
            "stop_sequence": None,
            "usage": usage(result),
        }

    def encoder(self, request: ClientRequest) -> EventEncoder:
        """A fresh encoder of the Messages event sequence."""
        return EventEncoder(request.route, new_message_id(), self.error_body)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """``{"type": "error", "error": {"type", "message"}}``."""
        return {
            "type": "error",
            "error": {"type": _ERROR_TYPES[error.kind], "message": error.message},
        }


def new_message_id() -> str:
    """A message id in Anthropic's form."""
    return "msg_" + uuid.uuid4().hex


def _block(part: Part) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ThinkingPart):
        # The field is required on the wire; it stays empty unless Anthropic signed the part.
        return {"type": "thinking", "thinking": part.text, "signature": signature(part) or ""}
    if isinstance(part, CallPart):
        call = part.call
        return {
            "type": "tool_use",
            "id": packed_id(wire_id(call.id), part),
            "name": call.name,
            "input": call.arguments,
        }
    return kept_block(part)  # redacted thinking, server-tool blocks: verbatim


def _message(message: Any, where: str) -> dict[str, Any]:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        raise bad_request("a message must be an object with role user or assistant", where)
    if message.get("content") is None:
        raise bad_request("a message needs 'content'", f"{where}.content")
    check_message(message, where)
    return message


def _system(system: Any) -> list[LangMessage]:
    """The system messages: one, unless a block carries a cache breakpoint; then one per
    block, each keeping its breakpoint for an Anthropic backend (others drop it)."""
    if system is None or isinstance(system, str):
        return [LangMessage.text("system", system)] if system else []
    check_system(system)
    if not isinstance(system, list) or not all(
        isinstance(b, dict) and isinstance(b.get("text"), str) for b in system
    ):
        raise bad_request("'system' must be a string or a list of text blocks", "system")
    if any("cache_control" in block for block in system):
        try:
            return [
                LangMessage.from_dict({"role": "system", "content": [block]})
                for block in system
                if block["text"]
            ]
        except ConfigError as exc:
            raise bad_request(str(exc), "system") from exc
    joined = "\n\n".join(b["text"] for b in system)
    return [LangMessage.text("system", joined)] if joined else []


def _options(body: dict[str, Any]) -> dict[str, Any]:
    tools = read_tools(body.get("tools"), "tools", _tool)
    options: dict[str, Any] = {
        "functions": tools,
        "max_tokens": body["max_tokens"],
        "temperature": check_number(body, "temperature"),
        "top_p": check_number(body, "top_p"),
        "stop": _stop(body.get("stop_sequences")),
        "user": _user(body),
        **read_sampling(body, ("top_k",)),
    }
    choice = check_type(body, "tool_choice", dict)
    if choice is not None:
        options.update(_tool_choice(choice, [t.name for t in tools]))
    thinking = check_type(body, "thinking", dict)
    if thinking is not None:
        options["thinking"] = _thinking(thinking)
    return options


def _user(body: Mapping[str, Any]) -> str | None:
    """``metadata.user_id``, the one metadata key the API has."""
    metadata = check_type(body, "metadata", dict) or {}
    refuse_unknown(metadata, ("user_id",), "metadata")
    user = metadata.get("user_id")
    if user is not None and not isinstance(user, str):
        raise bad_request("'metadata.user_id' must be a string", "metadata.user_id")
    return user or None


def _tool(entry: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    if entry.get("type") not in (None, "custom"):  # server tools run at Anthropic only
        raise bad_request(f"tool type {entry.get('type')!r} is not supported here", where)
    check_tool(entry, where)
    if not isinstance(entry.get("name"), str):
        raise bad_request("a tool needs a 'name'", f"{where}.name")
    schema = entry.get("input_schema")
    if not isinstance(schema, Mapping):
        raise bad_request("a tool needs an 'input_schema' object", f"{where}.input_schema")
    check_schema(schema, f"{where}.input_schema")
    return {
        "name": entry["name"],
        "description": entry.get("description", ""),
        "parameters": schema,
        "strict": entry.get("strict"),
    }


def _tool_choice(choice: Mapping[str, Any], names: list[str]) -> dict[str, Any]:
    kind = choice.get("type")
    forced: str | dict[str, str]
    if kind in _CHOICES:
        forced = _CHOICES[kind]
    elif kind == "tool" and choice.get("name") in names:
        forced = {"name": choice["name"]}
    elif kind == "tool":
        message = f"tool_choice names {choice.get('name')!r}, which is not in 'tools'"
        raise bad_request(message, "tool_choice.name")
    else:
        raise bad_request("tool_choice type must be auto, any, tool or none", "tool_choice.type")
    if forced not in ("none", "auto") and not names:
        raise bad_request("a forced tool_choice needs 'tools'", "tool_choice")
    options: dict[str, Any] = {"function_call": forced}
    if choice.get("disable_parallel_tool_use") is True:
        options["parallel_tool_calls"] = False
    return options


def _thinking(thinking: Mapping[str, Any]) -> bool | int:
    kind = thinking.get("type")
    if kind == "disabled":
        return False
    if kind == "adaptive":
        return True
    budget = thinking.get("budget_tokens")
    if kind != "enabled" or not isinstance(budget, int) or isinstance(budget, bool):
        raise bad_request("thinking must be enabled with an integer budget_tokens", "thinking")
    return budget


def _stop(stop: Any) -> list[str] | None:
    if stop is None or (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        return stop
    raise bad_request("'stop_sequences' must be a list of strings", "stop_sequences")
