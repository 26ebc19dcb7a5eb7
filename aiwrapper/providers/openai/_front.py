"""The OpenAI Chat Completions front-end: ``POST /v1/chat/completions``, streamed or not.

The reverse of this package's provider: a client's request body is read into the neutral
conversation (messages through ``message_dicts``, the same reader ``chat`` uses, their images
and documents through ``_front_content``) and run options; the outcome is written back as a
``chat.completion`` body or ``chat.completion.chunk`` events ending in ``data: [DONE]``.
Reasoning travels as ``reasoning_content``; signed thinking (an Anthropic backend's) as
``thinking_blocks`` on the assistant message, which a client that echoes the message back
returns unchanged, so the backend gets its signatures again. This wire also speaks for the
gateway's own endpoints (``GET /v1/models``, unknown paths).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._conversation._messages import ToolCallPart
from ..._conversation._result import LangResult
from .._callstate import unpack_calls
from .._front_checks import check_body, check_schema
from .._front_fields import (
    read_sampling,
    read_user,
    refuse_set,
    refuse_unknown,
    refuse_unless,
)
from .._front_tokens import TextWithTokens
from .._serving import (
    ClientRequest,
    ErrorKind,
    GatewayError,
    StreamEncoder,
    bad_request,
    check_number,
    check_type,
    read_route,
    read_tools,
)
from ._front_content import read_chat_messages
from ._front_keys import check_message, check_tool
from ._front_options import check_options, read_logprobs
from ._front_stream import (
    ChunkEncoder,
    envelope,
    new_id,
    reasoning,
    usage,
    wire_call,
    wire_finish,
)
from ._logprobs import wire_logprobs

__all__ = ["OpenAIChat", "openai_error_body"]

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
_SAMPLING = ("seed", "presence_penalty", "frequency_penalty", "logit_bias")
# Every request field of the wire: the ones read below, and the ones refused by _REFUSED.
_FIELDS = frozenset(
    {
        *("model", "messages", "tools", "tool_choice", "parallel_tool_calls", "stream"),
        *("stream_options", "temperature", "top_p", "max_tokens", "max_completion_tokens"),
        *("stop", "n", "response_format", "reasoning_effort", *_SAMPLING, "user"),
        *("safety_identifier", "logprobs", "top_logprobs", "store", "service_tier"),
        *("modalities", "verbosity", "prompt_cache_key", "metadata", "audio", "prediction"),
        *("web_search_options", "functions", "function_call"),
    }
)
_REFUSED = {
    "metadata": "it is kept only with stored completions, and nothing is stored here",
    "audio": "answers are text",
    "prediction": "not every backend takes predicted outputs",
    "web_search_options": "built-in tools run at OpenAI only",
    "functions": "send 'tools'",
    "function_call": "send 'tool_choice'",
}


class OpenAIChat:
    """The Chat Completions wire, as a server speaks it (a ``DefaultFrontend``)."""

    name = "openai"
    overloaded_status = 503

    def decode(self, body: Any) -> ClientRequest:
        """The request, or a 400 naming the field at fault."""
        check_body(body)
        route = read_route(body)
        _refuse_unsupported(body)
        check_type(body, "stream_options", dict)
        include_usage = check_options(body)
        messages = read_chat_messages(body.get("messages"), _message)
        unpack_calls(messages)  # here, so that forged state is a 400 like any other field
        return ClientRequest(
            route=route,
            messages=messages,
            options=_options(body),
            stream=bool(check_type(body, "stream", bool)),
            include_usage=include_usage,
        )

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        """The ``chat.completion`` body."""
        turn = result.messages[-1]
        message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
        message.update(reasoning(turn))
        if turn.tool_calls:
            calls = [p for p in turn.parts if isinstance(p, ToolCallPart)]
            message["tool_calls"] = [wire_call(p) for p in calls]
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": wire_finish(result),
            "logprobs": wire_logprobs(result.logprobs) if request.options.get("logprobs") else None,
        }
        return {
            **envelope("chat.completion", new_id(), request.route),
            "choices": [choice],
            "usage": usage(result),
        }

    def encoder(self, request: ClientRequest) -> StreamEncoder:
        """A fresh encoder of ``chat.completion.chunk`` events (with each text chunk's token
        log probabilities when the client asked for them)."""
        chunks = ChunkEncoder(request, self.error_body)
        return TextWithTokens(chunks) if request.options.get("logprobs") else chunks

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``."""
        return openai_error_body(error)

    def model_list(self, owners: Mapping[str, str]) -> dict[str, Any]:
        """The models list body: each route as a model owned by its provider's name."""
        data = [
            {"id": name, "object": "model", "created": 0, "owned_by": owner}
            for name, owner in owners.items()
        ]
        return {"object": "list", "data": data}


def openai_error_body(error: GatewayError) -> dict[str, Any]:
    """The error in OpenAI's shape, which every OpenAI API (Chat, Responses) shares."""
    return {
        "error": {
            "message": error.message,
            "type": _ERROR_TYPES[error.kind],
            "param": error.param,
            "code": error.code,
        }
    }


def _refuse_unsupported(body: dict[str, Any]) -> None:
    """What the gateway cannot honour is refused by name, never ignored."""
    refuse_unknown(body, _FIELDS)
    refuse_set(body, _REFUSED)
    if check_number(body, "n", integer=True) not in (None, 1):
        raise bad_request("only n=1 is supported", "n")
    refuse_unless(body, "store", False)
    refuse_unless(body, "service_tier", "auto", "default")
    refuse_unless(body, "modalities", ["text"])
    refuse_unless(body, "verbosity", "medium")  # the default: anything else changes answers
    check_type(body, "prompt_cache_key", str)  # a cache-routing hint: answers are the same
    # A JSON answer the gateway cannot ask of every backend.
    wanted = check_type(body, "response_format", dict)
    if wanted is not None and wanted.get("type") != "text":
        raise bad_request(
            "response_format other than {'type': 'text'} is not supported by this gateway",
            "response_format",
        )


def _message(message: Any, where: str) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise bad_request("a message must be an object", where)
    check_message(message, where)
    _check_calls(message.get("tool_calls"), f"{where}.tool_calls")
    if message.get("content") is None and not _has_turn(message):
        raise bad_request("a message needs 'content'", f"{where}.content")
    if message.get("tool_call_id") is not None and not isinstance(message["tool_call_id"], str):
        raise bad_request("'tool_call_id' must be a string", f"{where}.tool_call_id")
    return _with_thinking(message)


def _has_turn(message: dict[str, Any]) -> bool:
    """An assistant message may leave ``content`` out when it holds calls or reasoning."""
    keys = ("tool_calls", "thinking_blocks", "reasoning_content")
    return message.get("role") == "assistant" and any(message.get(key) for key in keys)


def _check_calls(calls: Any, where: str) -> None:
    """An echoed assistant message's ``tool_calls``: a list of function calls, or nothing."""
    if calls is None:
        return
    if not isinstance(calls, list):
        raise bad_request("'tool_calls' must be a list", where)
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(call.get("id"), str):
            message = "a tool call must be {'id': ..., 'type': 'function', 'function': {...}}"
            raise bad_request(message, f"{where}[{index}]")
        if not isinstance(function.get("name"), str):
            raise bad_request("a call needs a 'name'", f"{where}[{index}].function.name")
        if not isinstance(function.get("arguments", ""), str):
            raise bad_request(
                "'arguments' must be JSON text", f"{where}[{index}].function.arguments"
            )


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
    options.update(read_sampling(body, _SAMPLING), user=read_user(body))
    options.update(read_logprobs(body))
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
    check_tool(entry, where)
    if not isinstance(function.get("name"), str):
        raise bad_request("a function needs a 'name'", f"{where}.function.name")
    if function.get("parameters") is not None:
        check_schema(function["parameters"], f"{where}.function.parameters")
    return entry


def _tool_choice(choice: Any, names: list[str]) -> str | dict[str, str]:
    if choice in ("none", "auto", "required"):
        return str(choice)
    named = isinstance(choice, dict) and choice.get("type", "function") == "function"
    function = choice.get("function") if named else None
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
