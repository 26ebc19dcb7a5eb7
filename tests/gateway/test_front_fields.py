"""Every request field of the three front-ends is translated, or refused with a 400 naming it.

Called in process through ``httpx.ASGITransport``, on asyncio and trio. Scripted backends
record the options a request became; HTTP backends behind ``httpx.MockTransport`` show the
body a backend receives, or that none was sent.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

pytestmark = pytest.mark.anyio

CHAT, MESSAGES, RESPONSES = "/v1/chat/completions", "/v1/messages", "/v1/responses"
HI = [{"role": "user", "content": "Hi"}]
BASE = {
    CHAT: {"model": "local", "messages": HI},
    MESSAGES: {"model": "local", "messages": HI, "max_tokens": 16},
    RESPONSES: {"model": "local", "input": "Hi"},
}


def _client(gateway: Gateway) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


async def _post(lang: Lang, path: str, **fields: Any) -> httpx.Response:
    async with _client(Gateway({"local": lang})) as client:
        return await client.post(path, json={**BASE[path], **fields})


def _error(reply: httpx.Response) -> dict[str, Any]:
    error: dict[str, Any] = reply.json()["error"]
    return error


async def test_chat_sampling_fields_reach_the_backend_options() -> None:
    lang = Lang.scripted(["ok"])
    fields = {
        "seed": 7,
        "presence_penalty": 0.5,
        "frequency_penalty": -0.5,
        "logit_bias": {"50256": -100},
        "user": "user-42",
    }
    reply = await _post(lang, CHAT, **fields)
    assert reply.status_code == 200, reply.text
    options = lang.requests[0].options
    assert {key: getattr(options, key) for key in fields} == fields


async def test_chat_safety_identifier_is_the_user() -> None:
    lang = Lang.scripted(["ok"])
    assert (await _post(lang, CHAT, safety_identifier="u-1")).status_code == 200
    assert lang.requests[0].options.user == "u-1"


async def test_anthropic_top_k_and_metadata_user_id_reach_an_anthropic_backend() -> None:
    sent: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "ok"}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
        return httpx.Response(200, json=message)

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    lang = Lang.anthropic(
        "claude-sonnet-4-5", api_key="k", http_client=upstream, options={"stream": False}
    )
    reply = await _post(lang, MESSAGES, top_k=40, metadata={"user_id": "user-42"})
    assert reply.status_code == 200, reply.text
    assert (sent[0]["top_k"], sent[0]["metadata"]) == (40, {"user_id": "user-42"})


async def test_responses_user_reaches_the_backend_options() -> None:
    lang = Lang.scripted(["ok"])
    assert (await _post(lang, RESPONSES, user="user-42")).status_code == 200
    assert lang.requests[0].options.user == "user-42"


async def test_a_field_the_backends_wire_lacks_is_a_400_naming_it_and_the_backend() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    lang = Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=upstream)
    reply = await _post(lang, CHAT, seed=7)
    assert reply.status_code == 400
    assert "seed is not supported by anthropic" in _error(reply)["message"]
    assert sent == []


async def test_top_logprobs_without_logprobs_is_refused_by_name() -> None:
    lang = Lang.scripted(["never"])
    reply = await _post(lang, CHAT, top_logprobs=3)
    assert reply.status_code == 400
    assert _error(reply)["param"] == "top_logprobs"
    assert lang.requests == []


async def test_logprobs_false_is_served() -> None:
    assert (await _post(Lang.scripted(["ok"]), CHAT, logprobs=False)).status_code == 200


@pytest.mark.parametrize("path", [CHAT, MESSAGES, RESPONSES])
async def test_an_unknown_field_is_a_400_naming_it(path: str) -> None:
    lang = Lang.scripted(["never"])
    reply = await _post(lang, path, frobnicate=1)
    assert reply.status_code == 400
    assert "frobnicate" in _error(reply)["message"]
    if path != MESSAGES:
        assert _error(reply)["param"] == "frobnicate"
    assert lang.requests == []


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        (CHAT, {"messages": [{"role": "user"}]}),
        (CHAT, {"messages": [{"role": "user", "content": None}]}),
        (CHAT, {"messages": [*HI, {"role": "assistant"}]}),
        (MESSAGES, {"messages": [{"role": "user"}]}),
        (RESPONSES, {"input": [{"role": "user"}]}),
        (RESPONSES, {"input": [{"type": "message", "role": "user", "content": None}]}),
    ],
)
async def test_a_message_without_content_is_a_400(path: str, fields: dict[str, Any]) -> None:
    lang = Lang.scripted(["never"])
    reply = await _post(lang, path, **fields)
    assert reply.status_code == 400
    assert "content" in _error(reply)["message"]
    assert lang.requests == []


@pytest.mark.parametrize(
    ("path", "field", "value"),
    [
        (CHAT, "metadata", {"k": "v"}),
        (CHAT, "store", True),
        (CHAT, "service_tier", "flex"),
        (CHAT, "modalities", ["text", "audio"]),
        (CHAT, "audio", {"voice": "alloy"}),
        (CHAT, "functions", [{"name": "f"}]),
        (CHAT, "web_search_options", {}),
        (CHAT, "verbosity", "high"),
        (MESSAGES, "container", "c1"),
        (MESSAGES, "mcp_servers", []),
        (MESSAGES, "metadata", {"other": "x"}),
        (MESSAGES, "service_tier", "priority"),
        (RESPONSES, "max_tool_calls", 3),
        (RESPONSES, "truncation", "auto"),
        (RESPONSES, "text", {"verbosity": "high"}),
        (RESPONSES, "service_tier", "flex"),
    ],
)
async def test_a_field_the_gateway_cannot_honour_is_a_400_naming_it(
    path: str, field: str, value: Any
) -> None:
    lang = Lang.scripted(["never"])
    reply = await _post(lang, path, **{field: value})
    assert reply.status_code == 400, reply.text
    assert field in _error(reply)["message"]
    assert lang.requests == []


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        (CHAT, {"stream_options": {"include_usage": True}, "store": False}),
        (CHAT, {"service_tier": "auto", "modalities": ["text"], "n": 1}),
        (CHAT, {"prompt_cache_key": "k", "verbosity": "medium"}),
        (MESSAGES, {"service_tier": "auto", "metadata": {"user_id": "u"}}),
        (RESPONSES, {"store": False, "truncation": "disabled", "metadata": {"k": "v"}}),
        (RESPONSES, {"reasoning": {"effort": "low", "summary": "auto"}, "prompt_cache_key": "k"}),
        (RESPONSES, {"text": {"format": {"type": "text"}, "verbosity": "medium"}}),
        (RESPONSES, {"safety_identifier": "u", "include": ["reasoning.encrypted_content"]}),
    ],
)
async def test_fields_with_a_meaning_here_are_served(path: str, fields: dict[str, Any]) -> None:
    reply = await _post(Lang.scripted(["ok"]), path, **fields)
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize(
    ("path", "fields"),
    [(CHAT, {"logprobs": True}), (RESPONSES, {"include": ["message.output_text.logprobs"]})],
)
async def test_logprobs_toward_the_offline_model_are_a_400_naming_them(
    path: str, fields: dict[str, Any]
) -> None:
    reply = await _post(Lang.offline(), path, **fields)
    assert reply.status_code == 400
    assert "logprobs is not supported by the offline model" in _error(reply)["message"]
