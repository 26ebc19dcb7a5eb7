"""The provider state the gateway packs into call ids and ``encrypted_content`` is signed.

A client echoes that state back and the gateway replays it upstream, so only state this
gateway wrote (its HMAC tag verifies) comes back in; anything else after the mark is a 400
and never reaches the backend. Called in process through ``httpx.ASGITransport``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._messages import ProviderState, ToolCallPart
from aiwrapper._conversation._result import FunctionCall
from aiwrapper.gateway import Gateway
from aiwrapper.providers._callstate import packed, packed_id

pytestmark = pytest.mark.anyio

STATE = ProviderState("gemini", {"thoughtSignature": "c2ln"})


def _client(gateway: Gateway) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def _unsigned(fields: dict[str, Any]) -> str:
    """State packed the way an attacker would: the mark and base64 JSON, no valid tag."""
    text = json.dumps(fields, separators=(",", ":")).encode()
    return "__aws_" + base64.urlsafe_b64encode(text).decode().rstrip("=")


def _genuine(call_id: str) -> str:
    part = ToolCallPart(FunctionCall(name="f", arguments={}, id=call_id), state=STATE)
    return packed_id(call_id, part)


def _chat(call_id: str, result_id: str | None = None) -> dict[str, Any]:
    call = {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return {
        "model": "local",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": result_id or call_id, "content": "done"},
        ],
    }


def _tampered(text: str) -> str:
    """``text`` with one character of its packed JSON changed, its tag kept."""
    at = text.index("__aws_") + 8
    return text[:at] + ("A" if text[at] != "A" else "B") + text[at + 1 :]


FORGED_IDS = [
    "call_1" + _unsigned({"p": "gemini", "d": {"thoughtSignature": "x"}}),
    "call_1" + _unsigned({"p": "openai", "d": {"image_url": {"url": "http://evil/x.png"}}}),
    "call_1__aws_not*base64",
    _tampered(_genuine("call_1")),
]


@pytest.mark.parametrize("call_id", FORGED_IDS, ids=["unsigned", "image", "garbled", "tampered"])
async def test_a_forged_or_tampered_call_id_is_a_400_and_never_replayed(call_id: str) -> None:
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        chat = await client.post("/v1/chat/completions", json=_chat(call_id))
        body = {**_chat(call_id), "max_tokens": 16}
        body["messages"][1] = {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": "f", "input": {}}],
        }
        body["messages"][2] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call_id, "content": "done"}],
        }
        messages = await client.post("/v1/messages", json=body)
    assert (chat.status_code, messages.status_code) == (400, 400)
    assert "did not write" in chat.json()["error"]["message"]
    assert messages.json()["error"]["type"] == "invalid_request_error"
    assert lang.requests == []


async def test_state_moved_to_another_call_id_is_a_400() -> None:
    genuine = _genuine("call_1")
    moved = "call_2" + genuine[len("call_1") :]
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=_chat(moved))
    assert reply.status_code == 400
    assert lang.requests == []


async def test_state_the_gateway_signed_comes_back_to_the_backend() -> None:
    genuine = _genuine("call_1")
    lang = Lang.scripted(["ok"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=_chat(genuine))
    assert reply.status_code == 200
    sent = lang.requests[0].messages
    part = sent[1].parts[0]
    assert isinstance(part, ToolCallPart)
    assert (part.call.id, part.state, sent[2].tool_call_id) == ("call_1", STATE, "call_1")


@pytest.mark.parametrize(
    "encrypted",
    [
        _unsigned(
            {"p": "anthropic", "d": {"type": "redacted_thinking", "data": "x"}, "k": "opaque"}
        ),
        _tampered(packed(ProviderState("anthropic", {"signature": "c2ln"}))),
    ],
    ids=["unsigned", "tampered"],
)
async def test_forged_encrypted_content_is_a_400_and_never_replayed(encrypted: str) -> None:
    reasoning = {"type": "reasoning", "summary": [], "encrypted_content": encrypted}
    body = {"model": "local", "input": [{"role": "user", "content": "Hi"}, reasoning]}
    lang = Lang.scripted(["never"])
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/responses", json=body)
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert lang.requests == []


async def test_a_tag_of_non_ascii_characters_is_a_400_not_a_crash() -> None:
    lang = Lang.scripted(["never"])
    odd = "call_1__aws_e30" + "é" * 22  # base64 of {} then a "tag" no compare can take as text
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=_chat(odd))
    assert reply.status_code == 400
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert lang.requests == []


async def test_reasoning_state_cannot_pass_as_a_calls_state() -> None:
    lang = Lang.scripted(["never"])
    reasoning = packed(ProviderState("anthropic", {"block": {"type": "redacted_thinking"}}))
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/chat/completions", json=_chat(reasoning))  # id "" + state
    assert reply.status_code == 400
    assert lang.requests == []


async def test_a_request_shape_no_check_foresaw_is_a_400_in_the_clients_shape() -> None:
    lang = Lang.scripted(["never"])
    body = {
        "model": "local",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "Hi"}],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": ["auto"]},
    }
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post("/v1/messages", json=body)
    assert reply.status_code == 400
    assert reply.json()["type"] == "error"
    assert lang.requests == []


async def test_the_routes_own_extra_headers_still_reach_the_backend() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        chunk = {"choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
        return httpx.Response(200, text=body, headers={"content-type": "text/event-stream"})

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    lang = Lang.openai(
        api_key="k",
        http_client=upstream,
        max_retries=0,
        options={"extra_headers": {"Helicone-Auth": "Bearer hk", "X-Tenant": "t1"}},
    )
    async with _client(Gateway({"local": lang})) as client:
        reply = await client.post(
            "/v1/chat/completions",
            json={"model": "local", "messages": [{"role": "user", "content": "Hi"}]},
        )
    assert reply.status_code == 200
    assert (seen[0].headers["helicone-auth"], seen[0].headers["x-tenant"]) == ("Bearer hk", "t1")
    assert "x-aiwrapper-gateway-hops" in seen[0].headers
