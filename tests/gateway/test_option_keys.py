"""Keys inside the option objects of a request are read, or refused with a 400 naming them.

Each front-end refuses an unknown key inside ``tool_choice``, ``stream_options``,
``response_format``, ``thinking``, ``reasoning`` or ``text``, naming its JSON path, in its own
error shape; every key the official SDKs define for these objects is served, or refused by
name with a reason (never as unknown). Called in process through ``httpx.ASGITransport``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..vendor_sdks import anthropic, openai

pytestmark = pytest.mark.anyio

CHAT, MESSAGES, RESPONSES = "/v1/chat/completions", "/v1/messages", "/v1/responses"
SCHEMA = {"type": "object", "properties": {}}
CHAT_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]
ANTHROPIC_TOOLS = [{"name": "f", "input_schema": SCHEMA}]
RESPONSES_TOOLS = [{"type": "function", "name": "f", "parameters": SCHEMA}]
BASE = {
    CHAT: {"model": "local", "messages": [{"role": "user", "content": "hi"}]},
    MESSAGES: {"model": "local", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 16},
    RESPONSES: {"model": "local", "input": "hi"},
}
CHAT_CHOICE = {"type": "function", "function": {"name": "f"}}


async def _post(path: str, fields: dict[str, Any], lang: Lang | None = None) -> httpx.Response:
    gateway = Gateway({"local": lang or Lang.scripted(["ok"])})
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post(path, json={**BASE[path], **fields})


def _assert_refused(reply: httpx.Response, path: str, wire: str) -> str:
    """The 400's message, checked to name ``path`` (and as ``param`` on the OpenAI wires)."""
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert path in error["message"]
    if wire != MESSAGES:
        assert error["param"] == path
    return str(error["message"])


REFUSED = [
    (CHAT, {"tool_choice": {**CHAT_CHOICE, "zzz": 1}, "tools": CHAT_TOOLS}, "tool_choice.zzz"),
    (
        CHAT,
        {"tool_choice": {"type": "function", "function": {"name": "f", "zzz": 1}}},
        "tool_choice.function.zzz",
    ),
    (
        CHAT,
        {"tool_choice": {"type": "custom", "function": {"name": "f"}}, "tools": CHAT_TOOLS},
        "tool_choice",
    ),
    (CHAT, {"stream_options": {"include_usage": True, "foo": 1}}, "stream_options.foo"),
    (CHAT, {"stream_options": {"include_usage": "yes"}}, "stream_options.include_usage"),
    (
        CHAT,
        {"stream_options": {"include_obfuscation": True}},
        "stream_options.include_obfuscation",
    ),
    (CHAT, {"response_format": {"type": "text", "zz": 1}}, "response_format.zz"),
    (MESSAGES, {"tool_choice": {"type": "auto", "zzz": 1}}, "tool_choice.zzz"),
    (MESSAGES, {"tool_choice": {"type": "auto", "name": "f"}}, "tool_choice.name"),
    (MESSAGES, {"tool_choice": {"type": "none", "name": "f"}}, "tool_choice.name"),
    (
        MESSAGES,
        {"tool_choice": {"type": "any", "disable_parallel_tool_use": 1}, "tools": ANTHROPIC_TOOLS},
        "tool_choice.disable_parallel_tool_use",
    ),
    (MESSAGES, {"thinking": {"type": "enabled", "budget_tokens": 8, "foo": 1}}, "thinking.foo"),
    (
        MESSAGES,
        {"thinking": {"type": "disabled", "budget_tokens": 8}},
        "thinking.budget_tokens",
    ),
    (MESSAGES, {"thinking": {"type": "adaptive", "display": "omitted"}}, "thinking.display"),
    (MESSAGES, {"thinking": {"type": "between_tools"}}, "thinking.type"),
    (MESSAGES, {"metadata": {"user_id": "u", "zz": 1}}, "metadata.zz"),
    (
        RESPONSES,
        {"tool_choice": {"type": "function", "name": "f", "zzz": 1}, "tools": RESPONSES_TOOLS},
        "tool_choice.zzz",
    ),
    (RESPONSES, {"reasoning": {"effort": "low", "foo": 1}}, "reasoning.foo"),
    (RESPONSES, {"reasoning": {"context": "all_turns"}}, "reasoning.context"),
    (RESPONSES, {"reasoning": {"mode": "pro"}}, "reasoning.mode"),
    (RESPONSES, {"text": {"format": {"type": "text", "zz": 1}}}, "text.format.zz"),
    (RESPONSES, {"text": {"zz": 1}}, "text.zz"),
    (RESPONSES, {"stream_options": {"foo": 1}}, "stream_options.foo"),
    (
        RESPONSES,
        {"stream_options": {"include_obfuscation": True}},
        "stream_options.include_obfuscation",
    ),
]


@pytest.mark.parametrize(("wire", "fields", "path"), REFUSED)
async def test_a_key_inside_an_option_object_that_is_not_read_is_a_400_naming_it(
    wire: str, fields: dict[str, Any], path: str
) -> None:
    lang = Lang.scripted(["never"])
    _assert_refused(await _post(wire, fields, lang), path, wire)
    assert lang.requests == []


# Each option object the SDKs type: the TypedDict (looked up on first use, as the SDKs are
# imported then), the wire, the JSON path, a valid object the key is set on, the request
# fields around it, and for each key the SDK defines, values with whether they are served.
Case = tuple[
    Callable[[], Any],
    str,
    str,
    dict[str, Any],
    Callable[[dict[str, Any]], dict[str, Any]],
    dict[str, list[tuple[Any, bool]]],
]
SDK_CASES: dict[str, Case] = {
    "chat.tool_choice": (
        lambda: openai.types.chat.ChatCompletionNamedToolChoiceParam,
        CHAT,
        "tool_choice",
        CHAT_CHOICE,
        lambda o: {"tool_choice": o, "tools": CHAT_TOOLS},
        {"type": [("function", True)], "function": [({"name": "f"}, True)]},
    ),
    "chat.tool_choice.function": (
        lambda: openai.types.chat.chat_completion_named_tool_choice_param.Function,
        CHAT,
        "tool_choice.function",
        {"name": "f"},
        lambda o: {"tool_choice": {"type": "function", "function": o}, "tools": CHAT_TOOLS},
        {"name": [("f", True)]},
    ),
    "chat.stream_options": (
        lambda: openai.types.chat.ChatCompletionStreamOptionsParam,
        CHAT,
        "stream_options",
        {},
        lambda o: {"stream_options": o},
        {
            "include_usage": [(True, True), (False, True)],
            "include_obfuscation": [(False, True), (True, False)],
        },
    ),
    "chat.response_format": (
        lambda: openai.types.shared_params.ResponseFormatText,
        CHAT,
        "response_format",
        {"type": "text"},
        lambda o: {"response_format": o},
        {"type": [("text", True)]},
    ),
    "anthropic.tool_choice.auto": (
        lambda: anthropic.types.ToolChoiceAutoParam,
        MESSAGES,
        "tool_choice",
        {"type": "auto"},
        lambda o: {"tool_choice": o},
        {"type": [("auto", True)], "disable_parallel_tool_use": [(True, True), (False, True)]},
    ),
    "anthropic.tool_choice.any": (
        lambda: anthropic.types.ToolChoiceAnyParam,
        MESSAGES,
        "tool_choice",
        {"type": "any"},
        lambda o: {"tool_choice": o, "tools": ANTHROPIC_TOOLS},
        {"type": [("any", True)], "disable_parallel_tool_use": [(True, True)]},
    ),
    "anthropic.tool_choice.tool": (
        lambda: anthropic.types.ToolChoiceToolParam,
        MESSAGES,
        "tool_choice",
        {"type": "tool", "name": "f"},
        lambda o: {"tool_choice": o, "tools": ANTHROPIC_TOOLS},
        {
            "type": [("tool", True)],
            "name": [("f", True)],
            "disable_parallel_tool_use": [(True, True)],
        },
    ),
    "anthropic.tool_choice.none": (
        lambda: anthropic.types.ToolChoiceNoneParam,
        MESSAGES,
        "tool_choice",
        {"type": "none"},
        lambda o: {"tool_choice": o},
        {"type": [("none", True)]},
    ),
    "anthropic.thinking.enabled": (
        lambda: anthropic.types.ThinkingConfigEnabledParam,
        MESSAGES,
        "thinking",
        {"type": "enabled", "budget_tokens": 1024},
        lambda o: {"thinking": o},
        {
            "type": [("enabled", True)],
            "budget_tokens": [(2048, True)],
            "display": [(None, True), ("summarized", True), ("omitted", False)],
        },
    ),
    "anthropic.thinking.adaptive": (
        lambda: anthropic.types.ThinkingConfigAdaptiveParam,
        MESSAGES,
        "thinking",
        {"type": "adaptive"},
        lambda o: {"thinking": o},
        {
            "type": [("adaptive", True)],
            "display": [(None, True), ("summarized", True), ("omitted", False)],
        },
    ),
    "anthropic.thinking.disabled": (
        lambda: anthropic.types.ThinkingConfigDisabledParam,
        MESSAGES,
        "thinking",
        {"type": "disabled"},
        lambda o: {"thinking": o},
        {"type": [("disabled", True)]},
    ),
    "anthropic.metadata": (
        lambda: anthropic.types.MetadataParam,
        MESSAGES,
        "metadata",
        {},
        lambda o: {"metadata": o},
        {"user_id": [("u-1", True), (None, True)]},
    ),
    "responses.tool_choice": (
        lambda: openai.types.responses.ToolChoiceFunctionParam,
        RESPONSES,
        "tool_choice",
        {"type": "function", "name": "f"},
        lambda o: {"tool_choice": o, "tools": RESPONSES_TOOLS},
        {"type": [("function", True)], "name": [("f", True)]},
    ),
    "responses.reasoning": (
        lambda: openai.types.shared_params.Reasoning,
        RESPONSES,
        "reasoning",
        {},
        lambda o: {"reasoning": o},
        {
            "effort": [("low", True), (None, True)],
            "summary": [("auto", True)],
            "generate_summary": [("concise", True)],
            "context": [("auto", True), (None, True), ("current_turn", False)],
            "mode": [("standard", True), ("pro", False)],
        },
    ),
    "responses.text": (
        lambda: openai.types.responses.ResponseTextConfigParam,
        RESPONSES,
        "text",
        {},
        lambda o: {"text": o},
        {"format": [({"type": "text"}, True)], "verbosity": [("medium", True), ("low", False)]},
    ),
    "responses.text.format": (
        lambda: openai.types.shared_params.ResponseFormatText,
        RESPONSES,
        "text.format",
        {"type": "text"},
        lambda o: {"text": {"format": o}},
        {"type": [("text", True)]},
    ),
    "responses.stream_options": (
        lambda: openai.types.responses.response_create_params.StreamOptions,
        RESPONSES,
        "stream_options",
        {},
        lambda o: {"stream_options": o},
        {"include_obfuscation": [(False, True), (True, False)]},
    ),
}


@pytest.mark.parametrize("case", sorted(SDK_CASES))
async def test_every_key_the_sdk_defines_is_served_or_refused_by_name(case: str) -> None:
    sdk_type, wire, where, base, fields, samples = SDK_CASES[case]
    typed = sdk_type()
    assert set(samples) == typed.__required_keys__ | typed.__optional_keys__
    for key, values in samples.items():
        for value, served in values:
            reply = await _post(wire, fields({**base, key: value}))
            if served:
                assert reply.status_code == 200, (key, value, reply.text)
            else:
                message = _assert_refused(reply, f"{where}.{key}", wire)
                assert "unknown field" not in message
