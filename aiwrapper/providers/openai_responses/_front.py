"""The OpenAI Responses front-end: ``POST /v1/responses``, streamed or not.

A client's request is read into the neutral conversation (``input`` items in
``_front_input.py``, ``instructions`` as the system message) and run options (flat
function tools, ``tool_choice``, ``parallel_tool_calls``, ``max_output_tokens``,
``reasoning.effort``, sampling); the outcome goes back as a ``response`` object or its event
stream (``_front_stream.py``), errors in OpenAI's shape. The gateway keeps nothing
between requests, so what needs stored state is refused with a 400 naming the field:
``previous_response_id``, ``conversation``, stored ``prompt`` templates, ``store: true`` (and
with it retrieval), ``background``; so are what not every backend can do: built-in tools,
``text.format`` other than text. ``store`` left out is served as ``false``. Token log
probabilities are asked for and sent back as ``_front_logprobs.py`` says.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..._conversation._messages import LangMessage
from ..._conversation._result import LangResult
from .._callstate import unpack_calls
from .._front_checks import check_body, check_schema
from .._front_fields import read_user, refuse_set, refuse_unknown, refuse_unless
from .._front_tokens import TextWithTokens
from .._serving import (
    ClientRequest,
    GatewayError,
    StreamEncoder,
    bad_request,
    check_number,
    check_type,
    read_route,
    read_tools,
)
from ..openai._front import openai_error_body
from ._front_input import read_input
from ._front_items import new_id, output_items, response_object
from ._front_keys import check_tool
from ._front_logprobs import LogprobsEventEncoder, attach_logprobs, logprobs_options
from ._front_options import check_options
from ._front_stream import ResponseEventEncoder
from ._logprobs import INCLUDE

__all__ = ["ResponsesAPI"]

# reasoning.effort -> thinking; the Responses API's finer steps fold into the neutral three.
_EFFORTS: dict[str, str | bool] = {
    "none": False,
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "high",
}
_STATEFUL = ("previous_response_id", "conversation", "prompt")
# Encrypted reasoning is always sent when there is state to carry; logprobs when asked.
_INCLUDABLE = ("reasoning.encrypted_content", INCLUDE)
# Every request field of the wire: the ones read below, and the ones refused.
_FIELDS = frozenset(
    {
        *("model", "input", "instructions", "tools", "tool_choice", "parallel_tool_calls"),
        *("max_output_tokens", "temperature", "top_p", "reasoning", "text", "truncation"),
        *("metadata", "user", "safety_identifier", "prompt_cache_key", "store", "stream"),
        *("stream_options", "include", "background", "service_tier", "top_logprobs"),
        *("max_tool_calls", *_STATEFUL),
    }
)
_REFUSED = {"max_tool_calls": "it caps built-in tools, which run at OpenAI only"}
_SUMMARIES = ("auto", "concise", "detailed")


class ResponsesAPI:
    """The Responses wire, as a server speaks it."""

    name = "openai-responses"
    overloaded_status = 503

    def decode(self, body: Any) -> ClientRequest:
        """The request, or a 400 naming the field at fault."""
        check_body(body)
        route = read_route(body)
        _refuse_unsupported(body)
        messages = read_input(body.get("input"))
        unpack_calls(messages)  # here, so that forged state is a 400 like any other field
        instructions = check_type(body, "instructions", str)
        if instructions:
            messages.insert(0, LangMessage.text("system", instructions))
        return ClientRequest(
            route=route,
            messages=messages,
            options=_options(body),
            stream=bool(check_type(body, "stream", bool)),
            echo=_echo(body),
        )

    def response(self, request: ClientRequest, result: LangResult) -> dict[str, Any]:
        """The ``response`` object."""
        output = output_items(result.messages[-1].parts)
        if request.options.get("logprobs"):
            attach_logprobs(output, result)
        return response_object(request, new_id("resp"), int(time.time()), output, result)

    def encoder(self, request: ClientRequest) -> StreamEncoder:
        """A fresh encoder of the Responses event stream."""
        if request.options.get("logprobs"):
            return TextWithTokens(LogprobsEventEncoder(request, self.error_body))
        return ResponseEventEncoder(request, self.error_body)

    def error_body(self, error: GatewayError) -> dict[str, Any]:
        """``{"error": {"message", "type", "param", "code"}}``, as on every OpenAI API."""
        return openai_error_body(error)


def _refuse_unsupported(body: Mapping[str, Any]) -> None:
    refuse_unknown(body, _FIELDS)
    refuse_set(body, _REFUSED)
    refuse_unless(body, "service_tier", "auto", "default")
    refuse_unless(body, "truncation", "disabled")  # the whole conversation is always sent
    check_type(body, "prompt_cache_key", str)  # a cache-routing hint: answers are the same
    check_type(body, "stream_options", dict)
    check_type(body, "reasoning", dict)
    check_options(body)
    _check_metadata(body)
    for key in _STATEFUL:
        if body.get(key) is not None:
            message = f"{key!r} is not supported: this gateway keeps no state; send the whole "
            raise bad_request(message + "conversation in 'input'", key)
    for key in ("store", "background"):
        if check_type(body, key, bool):
            raise bad_request(f"{key}: true is not supported: this gateway keeps nothing", key)
    for index, included in enumerate(check_type(body, "include", list) or ()):
        if included not in _INCLUDABLE:
            raise bad_request(f"include {included!r} is not supported here", f"include[{index}]")
    text = check_type(body, "text", dict) or {}
    if text.get("format") is not None and (_kind(text["format"]) != "text"):
        raise bad_request("text.format other than {'type': 'text'} is not supported", "text.format")
    if text.get("verbosity") not in (None, "medium"):  # the default: others change answers
        raise bad_request("text.verbosity other than 'medium' is not supported", "text.verbosity")


def _options(body: Mapping[str, Any]) -> dict[str, Any]:
    tools = read_tools(body.get("tools"), "tools", _tool)
    options: dict[str, Any] = {
        "functions": tools,
        "parallel_tool_calls": check_type(body, "parallel_tool_calls", bool),
        "temperature": check_number(body, "temperature"),
        "top_p": check_number(body, "top_p"),
        "max_tokens": check_number(body, "max_output_tokens", integer=True),
        "user": read_user(body),
        **logprobs_options(body, check_type(body, "include", list) or []),
    }
    choice = body.get("tool_choice")
    if choice is not None:
        options["function_call"] = _tool_choice(choice, [t.name for t in tools])
    effort = _reasoning(body).get("effort")
    if effort is not None:
        if not isinstance(effort, str) or effort not in _EFFORTS:
            raise bad_request(f"unknown reasoning effort {effort!r}", "reasoning.effort")
        options["thinking"] = _EFFORTS[effort]
    return options


def _reasoning(body: Mapping[str, Any]) -> Mapping[str, Any]:
    """``reasoning``: an effort, and a summary wish (summaries always come when there are)."""
    reasoning = check_type(body, "reasoning", dict) or {}
    for key in ("summary", "generate_summary"):
        if reasoning.get(key) not in (None, *_SUMMARIES):
            raise bad_request(f"reasoning.{key} must be one of {_SUMMARIES}", f"reasoning.{key}")
    return reasoning


def _check_metadata(body: Mapping[str, Any]) -> None:
    """``metadata``, echoed on the response as OpenAI does: string keys to string values."""
    metadata = check_type(body, "metadata", dict) or {}
    if not all(isinstance(value, str) for value in metadata.values()):
        raise bad_request("metadata values must be strings", "metadata")


def _tool(entry: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    """A flat function tool; built-in tools run at OpenAI only, so they are refused."""
    if entry.get("type") != "function":
        message = f"tool type {entry.get('type')!r} is not supported here (function tools only)"
        raise bad_request(message, f"{where}.type")
    check_tool(entry, where)
    if not isinstance(entry.get("name"), str):
        raise bad_request("a function tool needs a 'name'", f"{where}.name")
    parameters = entry.get("parameters")
    if parameters is not None:
        check_schema(parameters, f"{where}.parameters")
    return {
        "name": entry["name"],
        "description": entry.get("description") or "",
        "parameters": parameters if parameters is not None else {"type": "object"},
        "strict": entry.get("strict"),
    }


def _tool_choice(choice: Any, names: list[str]) -> str | dict[str, str]:
    if choice in ("none", "auto", "required"):
        return str(choice)
    if _kind(choice) != "function" or not isinstance(choice.get("name"), str):
        raise bad_request(
            "tool_choice must be none, auto, required or {'type': 'function', 'name': ...}",
            "tool_choice",
        )
    if choice["name"] not in names:
        message = f"tool_choice names {choice['name']!r}, which is not in 'tools'"
        raise bad_request(message, "tool_choice.name")
    return {"name": choice["name"]}


def _kind(value: Any) -> Any:
    return value.get("type") if isinstance(value, Mapping) else None


def _echo(body: Mapping[str, Any]) -> dict[str, Any]:
    """The request fields a ``response`` object repeats, with the API's defaults."""
    return {
        "instructions": body.get("instructions"),
        "tools": body.get("tools") or [],
        "tool_choice": body.get("tool_choice") or "auto",
        "parallel_tool_calls": body.get("parallel_tool_calls") is not False,
        "temperature": body.get("temperature"),
        "top_p": body.get("top_p"),
        "max_output_tokens": body.get("max_output_tokens"),
        "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
        "text": body.get("text") or {"format": {"type": "text"}},
        "truncation": body.get("truncation") or "disabled",
        "metadata": body.get("metadata") or {},
        "top_logprobs": body.get("top_logprobs") or 0,
    }
