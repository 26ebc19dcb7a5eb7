"""Keys nested in messages, items, parts and tools are read, or refused with a 400 naming them.

Each front-end refuses an unknown key inside a message (or input item), a content part (or
block) and a tool declaration, naming its JSON path, in its own error shape. What the official
SDKs write when they send back the objects they got (dumped from their own types, every
optional field null) is served. Called in process through ``httpx.ASGITransport``.
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
CHAT_TOOL = {"type": "function", "function": {"name": "f", "parameters": SCHEMA}}
ANTHROPIC_TOOL = {"name": "f", "input_schema": SCHEMA}
RESPONSES_TOOL = {"type": "function", "name": "f", "parameters": SCHEMA}


async def _post(path: str, body: dict[str, Any], lang: Lang | None = None) -> httpx.Response:
    gateway = Gateway({"local": lang or Lang.scripted(["ok"])})
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.post(path, json={"model": "local", **body})


def _chat(message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"messages": [message], **fields}


def _messages(message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"messages": [message], "max_tokens": 16, **fields}


def _tool_calls(**extra: Any) -> list[dict[str, Any]]:
    function = {"name": "f", "arguments": "{}", **extra.pop("function", {})}
    return [{"id": "call_1", "type": "function", "function": function, **extra}]


CHAT_REFUSED = [
    (_chat({"role": "user", "content": "hi", "foo": 1}), "messages[0].foo"),
    (
        _chat({"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}),
        "messages[0].content[0].foo",
    ),
    (
        _chat(
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://example.com/a.png", "zz": 1},
                    }
                ],
            }
        ),
        "messages[0].content[0].image_url.zz",
    ),
    (_chat({"role": "user", "content": "hi", "name": "bob"}), "messages[0].name"),
    (_chat({"role": "system", "content": "hi", "name": "bob"}), "messages[0].name"),
    (_chat({"role": "assistant", "content": None, "refusal": "no"}), "messages[0].refusal"),
    (_chat({"role": "assistant", "content": "a", "refusal": 0}), "messages[0].refusal"),
    (_chat({"role": "assistant", "content": "a", "audio": {"id": "x"}}), "messages[0].audio"),
    (
        _chat({"role": "assistant", "content": "a", "annotations": [{"type": "url_citation"}]}),
        "messages[0].annotations",
    ),
    (
        _chat({"role": "assistant", "content": "a", "function_call": {"name": "f"}}),
        "messages[0].function_call",
    ),
    (
        _chat({"role": "assistant", "tool_calls": _tool_calls(extra=1)}),
        "messages[0].tool_calls[0].extra",
    ),
    (
        _chat({"role": "assistant", "tool_calls": _tool_calls(function={"zz": 1})}),
        "messages[0].tool_calls[0].function.zz",
    ),
    (_chat({"role": "user", "content": "hi"}, tools=[{**CHAT_TOOL, "zzz": 2}]), "tools[0].zzz"),
    (
        _chat(
            {"role": "user", "content": "hi"},
            tools=[{**CHAT_TOOL, "function": {**CHAT_TOOL["function"], "zzz": 1}}],
        ),
        "tools[0].function.zzz",
    ),
    (
        _chat(
            {"role": "user", "content": "hi"},
            tools=[{**CHAT_TOOL, "function": {**CHAT_TOOL["function"], "strict": "yes"}}],
        ),
        "tools[0].function.strict",
    ),
]


@pytest.mark.parametrize(("body", "path"), CHAT_REFUSED)
async def test_chat_refuses_a_nested_unknown_key_by_its_path(
    body: dict[str, Any], path: str
) -> None:
    reply = await _post(CHAT, body)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["param"] == path
    assert error["type"] == "invalid_request_error"
    assert path in error["message"]


def _chat_replay() -> list[dict[str, Any]]:
    """An answer with a call, as the openai package dumps its ``ChatCompletionMessage``."""
    answer = openai.types.chat.ChatCompletionMessage.model_validate(
        {"role": "assistant", "content": None, "tool_calls": _tool_calls()}
    ).model_dump(mode="json")
    plain = openai.types.chat.ChatCompletionMessage(role="assistant", content="hello").model_dump()
    assert {"refusal", "annotations", "audio", "function_call"} <= answer.keys()
    return [
        {"role": "user", "content": "hi"},
        plain,
        {"role": "user", "content": "again"},
        answer,
        {"role": "tool", "tool_call_id": "call_1", "content": "42", "name": "f"},
    ]


CHAT_SERVED = [
    _chat_replay,  # called by the test: the SDK is imported on first use, not at collection
    [{"role": "user", "content": "hi", "name": ""}],
    [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": None}]}],
    [
        {"role": "assistant", "content": "a", "refusal": None, "annotations": []},
        {"role": "user", "content": "hi"},
    ],
    [
        {"role": "assistant", "tool_calls": _tool_calls(index=0)},
        {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    ],
]


@pytest.mark.parametrize("messages", CHAT_SERVED)
async def test_chat_serves_what_the_sdk_writes_when_it_replays_its_answers(
    messages: list[dict[str, Any]] | Callable[[], list[dict[str, Any]]],
) -> None:
    if callable(messages):
        messages = messages()
    reply = await _post(CHAT, {"messages": messages})
    assert reply.status_code == 200, reply.text
    assert reply.json()["choices"][0]["message"]["content"] == "ok"


@pytest.mark.parametrize("strict", [True, False, None])
async def test_chat_tool_strict_reaches_the_tool(strict: bool | None) -> None:
    lang = Lang.scripted(["ok"])
    tool = {**CHAT_TOOL, "function": {**CHAT_TOOL["function"], "strict": strict}}
    reply = await _post(CHAT, _chat({"role": "user", "content": "hi"}, tools=[tool]), lang)
    assert reply.status_code == 200, reply.text
    assert lang.requests[0].options.functions[0].strict is strict


ANTHROPIC_REFUSED = [
    (
        _messages(
            {"role": "user", "content": "hi"}, system=[{"type": "text", "text": "s", "zz": 1}]
        ),
        "system[0].zz",
    ),
    (_messages({"role": "user", "content": "hi", "foo": 1}), "messages[0].foo"),
    (
        _messages({"role": "user", "content": [{"type": "text", "text": "hi", "foo": 1}]}),
        "messages[0].content[0].foo",
    ),
    (
        _messages(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "hi", "citations": [{"type": "char_location"}]}
                ],
            }
        ),
        "messages[0].content[0].citations",
    ),
    (
        _messages(
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t",
                        "name": "f",
                        "input": {},
                        "caller": {"type": "x"},
                    }
                ],
            }
        ),
        "messages[0].content[0].caller",
    ),
    (
        _messages(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t",
                        "content": [{"type": "text", "text": "a", "zz": 1}],
                    }
                ],
            }
        ),
        "messages[0].content[0].content[0].zz",
    ),
    (
        _messages({"role": "user", "content": "hi"}, tools=[{**ANTHROPIC_TOOL, "zzz": 1}]),
        "tools[0].zzz",
    ),
    (
        _messages(
            {"role": "user", "content": "hi"},
            tools=[{**ANTHROPIC_TOOL, "input_examples": [{"a": 1}]}],
        ),
        "tools[0].input_examples",
    ),
    (
        _messages({"role": "user", "content": "hi"}, tools=[{**ANTHROPIC_TOOL, "strict": 1}]),
        "tools[0].strict",
    ),
]


@pytest.mark.parametrize(("body", "path"), ANTHROPIC_REFUSED)
async def test_messages_refuses_a_nested_unknown_key_by_its_path(
    body: dict[str, Any], path: str
) -> None:
    reply = await _post(MESSAGES, body)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert path in error["message"]


def _anthropic_replay() -> list[dict[str, Any]]:
    """An answer with text, thinking and a call, as the anthropic package dumps its blocks."""
    blocks = [
        anthropic.types.ThinkingBlock(type="thinking", thinking="hm", signature="sig"),
        anthropic.types.TextBlock(type="text", text="calling"),
        anthropic.types.ToolUseBlock(type="tool_use", id="toolu_1", name="f", input={}),
    ]
    content = [block.model_dump(mode="json") for block in blocks]
    assert "citations" in content[1]
    assert "caller" in content[2]
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "42",
        "cache_control": {"type": "ephemeral"},
    }
    return [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": None}]},
        {"role": "assistant", "content": content},
        {"role": "user", "content": [result]},
    ]


async def test_messages_serves_what_the_sdk_writes_when_it_replays_its_answers() -> None:
    tools = [
        {
            **ANTHROPIC_TOOL,
            "cache_control": {"type": "ephemeral"},
            "defer_loading": False,
            "eager_input_streaming": True,
        }
    ]
    system = [{"type": "text", "text": "be brief", "citations": None}]
    body = {"messages": _anthropic_replay(), "max_tokens": 16, "tools": tools, "system": system}
    reply = await _post(MESSAGES, body)
    assert reply.status_code == 200, reply.text
    assert reply.json()["content"] == [{"type": "text", "text": "ok"}]


@pytest.mark.parametrize("strict", [True, False, None])
async def test_messages_tool_strict_reaches_the_tool(strict: bool | None) -> None:
    lang = Lang.scripted(["ok"])
    body = _messages(
        {"role": "user", "content": "hi"}, tools=[{**ANTHROPIC_TOOL, "strict": strict}]
    )
    reply = await _post(MESSAGES, body, lang)
    assert reply.status_code == 200, reply.text
    assert lang.requests[0].options.functions[0].strict is strict


def _input(*items: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"input": list(items), **fields}


RESPONSES_REFUSED = [
    (_input({"role": "user", "content": "hi", "foo": 1}), "input[0].foo"),
    (
        _input({"role": "user", "content": [{"type": "input_text", "text": "hi", "foo": 1}]}),
        "input[0].content[0].foo",
    ),
    (
        _input({"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "zz": 1}),
        "input[0].zz",
    ),
    (
        _input({"type": "function_call_output", "call_id": "c", "output": "42", "name": "f"}),
        "input[0].name",
    ),
    (
        _input({"type": "reasoning", "summary": [{"type": "summary_text", "text": "a", "zz": 1}]}),
        "input[0].summary[0].zz",
    ),
    (
        _input(
            {
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "a", "annotations": [{"type": "url_citation"}]}
                ],
            }
        ),
        "input[0].content[0].annotations",
    ),
    (
        _input({"role": "user", "content": "hi"}, tools=[{**RESPONSES_TOOL, "zzz": 1}]),
        "tools[0].zzz",
    ),
    (
        _input(
            {"role": "user", "content": "hi"},
            tools=[{**RESPONSES_TOOL, "output_schema": {"type": "object"}}],
        ),
        "tools[0].output_schema",
    ),
    (
        _input({"role": "user", "content": "hi"}, tools=[{**RESPONSES_TOOL, "strict": "on"}]),
        "tools[0].strict",
    ),
]


@pytest.mark.parametrize(("body", "path"), RESPONSES_REFUSED)
async def test_responses_refuses_a_nested_unknown_key_by_its_path(
    body: dict[str, Any], path: str
) -> None:
    reply = await _post(RESPONSES, body)
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["param"] == path
    assert path in error["message"]


def _responses_replay() -> list[dict[str, Any]]:
    """Output items as the openai package dumps them, every optional field null."""
    message = openai.types.responses.ResponseOutputMessage.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "calling", "annotations": []}],
        }
    )
    call = openai.types.responses.ResponseFunctionToolCall(
        type="function_call", call_id="call_1", name="f", arguments="{}", id="fc_1"
    )
    items = [item.model_dump(mode="json", by_alias=True) for item in (message, call)]
    assert "phase" in items[0]
    assert "caller" in items[1]
    output = {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "42",
        "id": None,
        "status": None,
    }
    return [{"role": "user", "content": "hi"}, *items, output]


async def test_responses_serves_what_the_sdk_writes_when_it_replays_its_answers() -> None:
    tools = [{**RESPONSES_TOOL, "strict": False, "description": None, "defer_loading": None}]
    reply = await _post(RESPONSES, {"input": _responses_replay(), "tools": tools})
    assert reply.status_code == 200, reply.text
    assert reply.json()["output"][0]["content"][0]["text"] == "ok"


@pytest.mark.parametrize("strict", [True, False, None])
async def test_responses_tool_strict_reaches_the_tool(strict: bool | None) -> None:
    lang = Lang.scripted(["ok"])
    body = _input({"role": "user", "content": "hi"}, tools=[{**RESPONSES_TOOL, "strict": strict}])
    reply = await _post(RESPONSES, body, lang)
    assert reply.status_code == 200, reply.text
    assert lang.requests[0].options.functions[0].strict is strict
