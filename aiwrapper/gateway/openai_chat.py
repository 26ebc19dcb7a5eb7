"""The OpenAI Chat Completions front-end: ``POST /v1/chat/completions``, streamed or not.

The reverse of ``providers/openai.py``: a client's request body is read into the neutral
conversation (messages through ``message_dicts``, the same reader ``chat`` uses) and run
options; the outcome is written back as a ``chat.completion`` body or ``chat.completion.chunk``
events ending in ``data: [DONE]``. Reasoning travels as ``reasoning_content``; signed thinking
(an Anthropic backend's) as ``thinking_blocks`` on the assistant message, which a client that
echoes the message back returns unchanged, so the backend gets its signatures again.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ..message_dicts import messages_from_dict
from ..messages import LangMessage, LangMessages, ThinkingPart
from ..providers.openai import _FINISH
from ..result import FunctionCall, LangResult
from ..runevents import CallArgumentsDelta, CallReady, CallStarted, RunEvent, TextDelta
from ..runevents import ThinkingDelta as ThinkingText
from .frontend import (
    ClientRequest,
    ErrorKind,
    GatewayError,
    bad_request,
    check_number,
    check_type,
    read_tools,
)

__all__ = ["OpenAIChat"]

# Canonical finish reason -> wire: the provider's table read backwards ("error" has no wire
# name a client knows; the turn ended, so "stop").
_WIRE_FINISH: dict[str, str] = {str(canonical): wire for wire, canonical in _FINISH.items()} | {
    "tool_calls": "tool_calls",
    "error": "stop",
    "pause": "stop",
}
_ERROR_TYPES: dict[ErrorKind, str] = {
    "invalid_request": "invalid_request_error",
    "authentication": "authentication_error",
    "permission": "permission_error",
    "not_found": "invalid_request_error",
    "request_too_large": "invalid_request_error",
    "rate_limit": "rate_limit_error",
    "overloaded": "server_error",
    "upstream": "server_error",
    "timeout": "timeout_error",
}
_EFFORTS = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


class OpenAIChat:
    """The Chat Completions wire, as a server speaks it."""

    name = "openai"
    overloaded_status = 503

    def decode(self, body: Any) -> ClientRequest:
        """The request, or a 400 naming the field at fault."""
        if not isinstance(body, dict):
            raise bad_request("the body must be a JSON object", None)
        route = check_type(body, "model", str)
        if not route:
            raise bad_request("'model' is required", "model")
        if check_number(body, "n", integer=True) not in (None, 1):
            raise bad_request("only n=1 is supported", "n")
        stream_options = check_type(body, "stream_options", dict) or {}
        return ClientRequest(
            route=route,
            messages=_messages(body.get("messages")),
            options=_options(body),
            stream=bool(check_type(body, "stream", bool)),
            include_usage=bool(stream_options.get("include_usage")),
        )

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        """The ``chat.completion`` body."""
        turn = result.messages[-1]
        message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
        message.update(_reasoning(turn))
        if turn.tool_calls:
            message["tool_calls"] = [_call(c) for c in turn.tool_calls]
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": _finish(result),
            "logprobs": None,
        }
        return {
            **_envelope("chat.completion", _new_id(), request.route),
            "choices": [choice],
            "usage": _usage(result),
        }

    def encoder(self, request: ClientRequest) -> ChunkEncoder:
        """A fresh encoder of ``chat.completion.chunk`` events."""
        return ChunkEncoder(request)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return {
            "error": {
                "message": error.message,
                "type": _ERROR_TYPES[error.kind],
                "param": error.param,
                "code": error.code,
            }
        }


class ChunkEncoder:
    """Run events as ``chat.completion.chunk`` SSE events (role first, ``[DONE]`` last)."""

    def __init__(self, request: ClientRequest) -> None:
        self._envelope = _envelope("chat.completion.chunk", _new_id(), request.route)
        self._include_usage = request.include_usage
        self._indexes: dict[int, int] = {}  # id() of a call -> its index in tool_calls
        self._streamed: set[int] = set()  # id() of calls whose arguments went out in pieces
        self._started = False

    def event(self, event: RunEvent) -> bytes:
        """The chunk for one run event (empty when it shows nothing here)."""
        if isinstance(event, TextDelta):
            return self._delta({"content": event.text})
        if isinstance(event, ThinkingText):
            return self._delta({"reasoning_content": event.text})
        if isinstance(event, CallStarted):
            return self._call_started(event.call)
        if isinstance(event, CallArgumentsDelta):
            self._streamed.add(id(event.call))
            return self._arguments(event.call, event.fragment)
        if isinstance(event, CallReady) and id(event.call) not in self._streamed:
            # Arguments that came whole (a wire that sends objects): one fragment, all of it.
            return self._arguments(event.call, event.call.arguments_json())
        return b""

    def finish(self, result: LangResult) -> bytes:
        """Signed thinking, the finish reason, usage when asked, then ``[DONE]``."""
        out = bytearray()
        signed = _reasoning(result.messages[-1]).get("thinking_blocks")
        if signed:
            out += self._delta({"thinking_blocks": signed})
        out += self._chunk({}, _finish(result))
        if self._include_usage:
            out += _sse({**self._envelope, "choices": [], "usage": _usage(result)})
        return bytes(out + b"data: [DONE]\n\n")

    def error(self, error: GatewayError) -> bytes:
        """An error object where the next chunk would be, and no ``[DONE]``."""
        return _sse(OpenAIChat().error_body(error))

    def _call_started(self, call: FunctionCall) -> bytes:
        index = self._indexes[id(call)] = len(self._indexes)
        entry = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        return self._delta({"tool_calls": [entry]})

    def _arguments(self, call: FunctionCall, fragment: str) -> bytes:
        index = self._indexes.get(id(call))
        if index is None or not fragment:
            return b""
        return self._delta({"tool_calls": [{"index": index, "function": {"arguments": fragment}}]})

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return self._chunk(delta, None)

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None) -> bytes:
        prefix = b""
        if not self._started:  # the role goes on the first delta, as OpenAI sends it
            self._started = True
            prefix = self._chunk({"role": "assistant", "content": ""}, None)
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}
        chunk = {**self._envelope, "choices": [choice]}
        if self._include_usage:
            chunk["usage"] = None  # every chunk but the last carries a null usage
        return prefix + _sse(chunk)


def _sse(data: Mapping[str, Any]) -> bytes:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return b"data: " + text.encode("utf-8") + b"\n\n"


def _new_id() -> str:
    return "chatcmpl-" + uuid.uuid4().hex


def _envelope(kind: str, response_id: str, model: str) -> dict[str, Any]:
    return {"id": response_id, "object": kind, "created": int(time.time()), "model": model}


def _finish(result: LangResult) -> str:
    return _WIRE_FINISH.get(result.finish_reason or "stop", "stop")


def _usage(result: LangResult) -> dict[str, int]:
    usage = result.usage
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def _call(call: FunctionCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json()},
    }


def _reasoning(turn: LangMessage) -> dict[str, Any]:
    """``reasoning_content``, and ``thinking_blocks`` when the backend signed its thinking."""
    out: dict[str, Any] = {}
    if turn.thinking:
        out["reasoning_content"] = turn.thinking
    blocks = [
        {"type": "thinking", "thinking": p.text, "signature": p.state.data["signature"]}
        for p in turn.parts
        if isinstance(p, ThinkingPart)
        and p.state is not None
        and p.state.provider == "anthropic"
        and p.state.data.get("signature")
    ]
    if blocks:
        out["thinking_blocks"] = blocks
    return out


def _messages(raw: Any) -> LangMessages:
    if not isinstance(raw, list) or not raw:
        raise bad_request("'messages' must be a non-empty list", "messages")
    out = LangMessages()
    for index, message in enumerate(raw):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise bad_request("a message must be an object", where)
        try:
            out.extend(messages_from_dict(_with_thinking(message)))
        except ConfigError as exc:
            raise bad_request(str(exc), where) from exc
    return out


def _with_thinking(message: dict[str, Any]) -> dict[str, Any]:
    """An echoed assistant message's reasoning, in the form ``message_dicts`` reads.

    Signed ``thinking_blocks`` become the content's leading thinking blocks (their signatures
    kept); ``reasoning_content`` alone becomes plain thinking.
    """
    if message.get("role") != "assistant":
        return message
    blocks, content = message.get("thinking_blocks"), message.get("content")
    if isinstance(blocks, list) and blocks:
        text = [{"type": "text", "text": content}] if isinstance(content, str) and content else []
        rest = content if isinstance(content, list) else text
        return {**message, "content": [*blocks, *rest], "thinking_blocks": None}
    if message.get("reasoning_content") and not message.get("thinking"):
        return {**message, "thinking": message["reasoning_content"]}
    return message


def _options(body: dict[str, Any]) -> dict[str, Any]:
    tools = read_tools(body.get("tools"), "tools", _tool)
    options: dict[str, Any] = {"functions": tools}
    choice = body.get("tool_choice")
    if choice is not None:
        options["function_call"] = _tool_choice(choice, [t.name for t in tools])
    options["parallel_tool_calls"] = check_type(body, "parallel_tool_calls", bool)
    options["temperature"] = check_number(body, "temperature")
    options["top_p"] = check_number(body, "top_p")
    options["max_tokens"] = check_number(body, "max_completion_tokens", integer=True)
    if options["max_tokens"] is None:
        options["max_tokens"] = check_number(body, "max_tokens", integer=True)
    options["stop"] = _stop(body.get("stop"))
    effort = check_type(body, "reasoning_effort", str)
    if effort is not None:
        if effort not in (*_EFFORTS, "none"):
            raise bad_request(f"unknown reasoning_effort {effort!r}", "reasoning_effort")
        options["thinking"] = _EFFORTS.get(effort, False)
    return options


def _tool(entry: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    function = entry.get("function")
    if entry.get("type") != "function" or not isinstance(function, Mapping):
        raise bad_request("a tool must be {'type': 'function', 'function': {...}}", where)
    if not isinstance(function.get("name"), str):
        raise bad_request("a function needs a 'name'", f"{where}.function.name")
    return entry


def _tool_choice(choice: Any, names: list[str]) -> str | dict[str, str]:
    if choice in ("none", "auto", "required"):
        return str(choice)
    function = choice.get("function") if isinstance(choice, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str):
        raise bad_request(
            "tool_choice must be none, auto, required or {'type': 'function', ...}", "tool_choice"
        )
    if name not in names:
        raise bad_request(f"tool_choice names {name!r}, which is not in 'tools'", "tool_choice")
    return {"name": name}


def _stop(stop: Any) -> str | list[str] | None:
    if stop is None or isinstance(stop, str):
        return stop
    if isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        return stop
    raise bad_request("'stop' must be a string or a list of strings", "stop")
