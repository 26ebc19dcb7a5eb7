"""Hostile and malformed request bodies: each is a 400 in the client's error shape, fast.

The gateway is called in process through ``httpx.ASGITransport``, on asyncio and trio, with a
scripted backend that must never be reached.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway
from aiwrapper.providers._serving import MAX_TOOLS

pytestmark = pytest.mark.anyio

CHAT, MESSAGES, RESPONSES = "/v1/chat/completions", "/v1/messages", "/v1/responses"
HUGE = "1" + "0" * 400  # a 401-digit integer: Python reads it, no float holds it
LONE = "\ud800"  # a lone surrogate: JSON can say it, UTF-8 cannot encode it


def _client(gateway: Gateway) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def _chat(**fields: Any) -> dict[str, Any]:
    return {"model": "local", "messages": [{"role": "user", "content": "Hi"}], **fields}


def _messages(**fields: Any) -> dict[str, Any]:
    return {"max_tokens": 16, **_chat(**fields)}


def _responses(**fields: Any) -> dict[str, Any]:
    return {"model": "local", "input": "Hi", **fields}


def _call(tool_calls: Any) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": tool_calls},
    ]


def _chat_tool(parameters: Any) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": parameters}}]


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


ANSWERED_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
# (path, raw JSON text of the body): every one a 400 in the path's error shape.
MALFORMED: list[tuple[str, str]] = [
    *((path, "[" * 100_000) for path in (CHAT, MESSAGES, RESPONSES)),
    (CHAT, json.dumps(_chat(messages=_call(5)))),
    (CHAT, json.dumps(_chat(messages=_call("ab")))),
    (CHAT, json.dumps(_chat(messages=_call([5])))),
    (
        CHAT,
        json.dumps(
            _chat(
                messages=[
                    *_call([ANSWERED_CALL]),
                    {"role": "tool", "tool_call_id": 5, "content": "x"},
                ]
            )
        ),
    ),
    (CHAT, json.dumps(_chat()).replace('"Hi"}]', '"Hi"}], "max_tokens": ' + HUGE)),
    (CHAT, json.dumps(_chat()).replace('"Hi"}]', '"Hi"}], "temperature": ' + HUGE)),
    (CHAT, json.dumps(_chat()).replace('"Hi"}]', '"Hi"}], "n": ' + HUGE)),
    (MESSAGES, json.dumps(_messages()).replace('"max_tokens": 16', '"max_tokens": ' + HUGE)),
    (RESPONSES, json.dumps(_responses()).replace('"Hi"', '"Hi", "temperature": ' + HUGE)),
    (CHAT, json.dumps(_chat(tools=_chat_tool({"type": "object", "properties": [1]})))),
    (CHAT, json.dumps(_chat(tools=_chat_tool({"type": "object", "required": 5})))),
    (CHAT, json.dumps(_chat(tools=_chat_tool(_nested(200))))),
    (
        CHAT,
        json.dumps(
            _chat(tools=_chat_tool({"type": "object", "properties": {"x": {"format": [5]}}}))
        ),
    ),
    (
        MESSAGES,
        json.dumps(
            _messages(tools=[{"name": "f", "input_schema": {"type": "object", "properties": [1]}}])
        ),
    ),
    (MESSAGES, json.dumps(_messages(tools=[{"name": "f", "input_schema": _nested(200)}]))),
    (
        RESPONSES,
        json.dumps(
            _responses(
                tools=[
                    {
                        "type": "function",
                        "name": "f",
                        "parameters": {"type": "object", "required": 5},
                    }
                ]
            )
        ),
    ),
    (RESPONSES, json.dumps(_responses(input=[{"type": "reasoning", "summary": 5}]))),
    (RESPONSES, json.dumps(_responses(input=[{"type": "reasoning", "summary": [], "content": 5}]))),
    (RESPONSES, json.dumps(_responses(reasoning={"effort": ["x"]}))),
    (RESPONSES, json.dumps(_responses(metadata={"k": LONE}))),
    (RESPONSES, json.dumps(_responses(instructions=LONE))),
    (
        CHAT,
        json.dumps(
            _chat(tools=[{"type": "function", "function": {"name": "f", "description": LONE}}])
        ),
    ),
    (MESSAGES, json.dumps(_messages(system=LONE))),
]


def _openai_backend(sent: list[httpx.Request]) -> Lang:
    """An OpenAI backend that would answer; ``sent`` collects what reaches it."""

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        message = {"role": "assistant", "content": "never"}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return httpx.Response(200, json={"id": "x", "model": "m", "choices": [choice]})

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    options = {"stream": False}
    return Lang.openai("gpt-4o", api_key="k", http_client=upstream, max_retries=0, options=options)


@pytest.mark.parametrize(("path", "text"), MALFORMED)
async def test_a_malformed_request_is_a_400_in_the_clients_error_shape(
    path: str, text: str
) -> None:
    sent: list[httpx.Request] = []
    gateway = Gateway({"local": _openai_backend(sent)})
    async with _client(gateway) as client:
        reply = await client.post(path, content=text, headers={"content-type": "application/json"})
    assert reply.status_code == 400, reply.text
    assert sent == []
    error = reply.json()
    if path == MESSAGES:
        assert error["type"] == "error"
        assert error["error"]["type"] == "invalid_request_error"
    else:
        assert error["error"]["type"] == "invalid_request_error"
        assert set(error["error"]) == {"message", "type", "param", "code"}


def _many_tools(count: int, path: str) -> list[dict[str, Any]]:
    params = {"type": "object", "properties": {}}
    if path == CHAT:
        return [
            {"type": "function", "function": {"name": f"f{i}", "parameters": params}}
            for i in range(count)
        ]
    if path == MESSAGES:
        return [{"name": f"f{i}", "input_schema": params} for i in range(count)]
    return [{"type": "function", "name": f"f{i}", "parameters": params} for i in range(count)]


@pytest.mark.parametrize("path", [CHAT, MESSAGES, RESPONSES])
async def test_more_tools_than_the_cap_are_a_400_naming_it(path: str) -> None:
    body = {CHAT: _chat, MESSAGES: _messages, RESPONSES: _responses}[path](
        tools=_many_tools(40_000, path)
    )
    gateway = Gateway({"local": Lang.scripted([])})
    async with _client(gateway) as client:
        reply = await client.post(path, json=body)
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert f"at most {MAX_TOOLS} tools" in message


@pytest.mark.parametrize("path", [CHAT, MESSAGES, RESPONSES])
async def test_tools_up_to_the_cap_are_served(path: str) -> None:
    body = {CHAT: _chat, MESSAGES: _messages, RESPONSES: _responses}[path](
        tools=_many_tools(MAX_TOOLS, path)
    )
    lang = Lang.scripted(["done"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(path, json=body)
    assert reply.status_code == 200
    assert len(lang.requests[0].tools) == MAX_TOOLS


class _CountedName(str):
    """A tool name that counts how often it is compared."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _CountedName.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_the_duplicate_tool_check_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiwrapper.providers import _serving

    class Named:
        def __init__(self, name: str) -> None:
            self.name = _CountedName(name)

    monkeypatch.setattr(_serving, "to_tool", lambda entry: Named(entry["name"]))
    _CountedName.compared = 0
    tools = _serving.read_tools([{"name": f"f{i}"} for i in range(500)], "tools", lambda e, w: e)
    assert len(tools) == 500
    assert _CountedName.compared <= 500  # a scan of the earlier names would take 124,750


def test_tools_past_the_cap_are_refused_before_any_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiwrapper.providers import _serving
    from aiwrapper.providers._serving import GatewayError

    read: list[Any] = []
    monkeypatch.setattr(_serving, "to_tool", read.append)
    with pytest.raises(GatewayError, match=f"at most {MAX_TOOLS} tools") as refused:
        _serving.read_tools([{"name": f"f{i}"} for i in range(40_000)], "tools", lambda e, w: e)
    assert (refused.value.status, refused.value.param, read) == (400, "tools", [])


async def test_a_rich_but_sound_tool_schema_is_served() -> None:
    schema = {
        "type": "object",
        "properties": {
            "when": {"type": ["string", "null"], "format": "date", "description": "Day."},
            "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
            "required": {"type": "boolean"},  # a property may be called "required"
            "mode": {"enum": ["a", "b"]},
        },
        "required": ["when"],
        "additionalProperties": False,
        "$defs": {"tag": {"anyOf": [{"type": "string", "pattern": "^[a-z]+$"}, True]}},
    }
    lang = Lang.scripted(["ok"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(CHAT, json=_chat(tools=_chat_tool(schema)))
    assert reply.status_code == 200, reply.text
    assert lang.requests[0].tools[0]["name"] == "f"
