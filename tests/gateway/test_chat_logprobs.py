"""Token log probabilities through the gateway's Chat Completions front: the official
``openai`` SDK as the client, an OpenAI backend behind ``httpx.MockTransport`` answering with
log probabilities; the client's fields checked as OpenAI checks them; a backend whose wire has
none refuses them by name. Called in process through ``httpx.ASGITransport``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import (
    Lang,
    LangMessage,
    LangMessages,
    LangResult,
    LogprobsDelta,
    TextDelta,
    TokenLogprob,
)
from aiwrapper.gateway import Gateway
from aiwrapper.providers._serving import ClientRequest, GatewayError
from aiwrapper.providers.openai._front import OpenAIChat

from ..vendor_sdks import openai

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parents[1] / "fixtures" / "openai"
CHAT = "/v1/chat/completions"
HI = [{"role": "user", "content": "Say hello"}]
# What the backend sent, token by token: the whole body's, and the stream's.
WHOLE = json.loads((FIXTURES / "logprobs.json").read_bytes())["choices"][0]["logprobs"]["content"]
STREAMED = [
    token
    for line in (FIXTURES / "logprobs.sse").read_text().splitlines()
    if line.startswith("data: {")
    for token in ((json.loads(line[6:])["choices"][0]["logprobs"] or {}).get("content") or [])
]


def openai_backend(
    sent: list[dict[str, Any]], answer: tuple[bytes, bytes] | None = None, *, stream: bool = True
) -> Lang:
    """An OpenAI route answering a streamed request with ``answer[0]`` (the SSE fixture by
    default) and a whole one with ``answer[1]`` (the JSON fixture); bodies land in ``sent``."""
    streamed, whole = answer or (
        (FIXTURES / "logprobs.sse").read_bytes(),
        (FIXTURES / "logprobs.json").read_bytes(),
    )

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if body.get("stream"):
            return httpx.Response(
                200, content=streamed, headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, content=whole, headers={"content-type": "application/json"})

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return Lang.openai(
        api_key="k",
        model="gpt-4o-mini",
        http_client=upstream,
        max_retries=0,
        options={"stream": stream},
    )


def asgi(gateway: Gateway) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def sdk(gateway: Gateway) -> Any:
    return openai.AsyncOpenAI(
        base_url="http://127.0.0.1/v1", api_key="-", max_retries=0, http_client=asgi(gateway)
    )


def dumped(tokens: Any) -> list[dict[str, Any]]:
    return [token.model_dump() for token in tokens]


# --- the official SDK, end to end ------------------------------------------------------------


@pytest.mark.parametrize("stream_upstream", [True, False])
async def test_a_whole_completion_carries_the_backends_tokens(stream_upstream: bool) -> None:
    sent: list[dict[str, Any]] = []
    backend = openai_backend(sent, stream=stream_upstream)
    async with sdk(Gateway({"lp": backend})) as client:
        completion = await client.chat.completions.create(
            model="lp", messages=HI, logprobs=True, top_logprobs=2
        )
    choice = completion.choices[0]
    expected = STREAMED if stream_upstream else WHOLE
    assert choice.message.content == (
        "Hello there \U0001f642" if stream_upstream else "Hello there"
    )
    assert dumped(choice.logprobs.content) == expected
    assert choice.logprobs.content[0].token == "Hello"
    assert choice.logprobs.content[0].top_logprobs[1].token == "Hi"
    assert choice.logprobs.refusal is None
    assert (sent[0]["logprobs"], sent[0]["top_logprobs"]) == (True, 2)


# The SDK leaves its own SSE generators unfinished after ``[DONE]``; trio warns when they are
# collected (asyncio does not): that warning alone is let through.
@pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <async_generator object "
    "(SSEDecoder.aiter_bytes|AsyncStream._iter_events|SSEDecoder._aiter_chunks) "
    ":pytest.PytestUnraisableExceptionWarning"
)
async def test_a_stream_carries_each_chunks_tokens_with_its_text() -> None:
    sent: list[dict[str, Any]] = []
    async with sdk(Gateway({"lp": openai_backend(sent)})) as client:
        stream = await client.chat.completions.create(
            model="lp", messages=HI, logprobs=True, top_logprobs=2, stream=True
        )
        chunks = [chunk async for chunk in stream]
    with_text = [c.choices[0] for c in chunks if c.choices and c.choices[0].delta.content]
    assert [c.delta.content for c in with_text] == ["Hello", " there", " \U0001f642"]
    assert [[t.token for t in c.logprobs.content] for c in with_text] == [
        ["Hello"],
        [" there"],
        ["\\xf0\\x9f\\x99", "\\x82"],
    ]
    assert [t for c in with_text for t in dumped(c.logprobs.content)] == STREAMED
    assert all(c.logprobs.refusal is None for c in with_text)
    others = [c.choices[0] for c in chunks if c.choices and not c.choices[0].delta.content]
    assert others  # the role chunk and the finish chunk
    assert all(c.logprobs is None for c in others)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert (sent[0]["logprobs"], sent[0]["top_logprobs"], sent[0]["stream"]) == (True, 2, True)


@pytest.mark.parametrize("stream", [True, False])
async def test_a_client_that_did_not_ask_gets_null_logprobs(stream: bool) -> None:
    sent: list[dict[str, Any]] = []
    async with asgi(Gateway({"lp": openai_backend(sent)})) as client:
        reply = await client.post(CHAT, json={"model": "lp", "messages": HI, "stream": stream})
    assert reply.status_code == 200, reply.text
    if stream:
        chunks = [
            json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: {")
        ]
        assert len(chunks) >= 4
        assert all(chunk["choices"][0]["logprobs"] is None for chunk in chunks)
    else:
        assert reply.json()["choices"][0]["logprobs"] is None
    assert "logprobs" not in sent[0]


async def test_unknown_bytes_null_no_alternatives_empty_and_minus_infinity_a_floor() -> None:
    chunk = {
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "delta": {"content": "a"},
                "logprobs": {"content": [{"token": "a", "logprob": None, "bytes": None}]},
                "finish_reason": None,
            }
        ],
    }
    end = {"model": "gpt-4o-mini", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    streamed = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode()
    sent: list[dict[str, Any]] = []
    gateway = Gateway({"lp": openai_backend(sent, (streamed, b""))})
    body = {"model": "lp", "messages": HI, "logprobs": True, "stream": True}
    async with asgi(gateway) as client:
        reply = await client.post(CHAT, json=body)
    chunks = [
        json.loads(line[6:]) for line in reply.text.splitlines() if line.startswith("data: {")
    ]
    tokens = [
        c["choices"][0]["logprobs"] for c in chunks if c["choices"][0]["delta"].get("content")
    ]
    entry = {"token": "a", "logprob": -9999.0, "bytes": None, "top_logprobs": []}
    assert tokens == [{"content": [entry], "refusal": None}]
    assert "top_logprobs" not in sent[0]


# --- the client's fields ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"logprobs": "yes"}, "logprobs"),
        ({"logprobs": 1}, "logprobs"),
        ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),
        ({"logprobs": True, "top_logprobs": -1}, "top_logprobs"),
        ({"logprobs": True, "top_logprobs": 2.5}, "top_logprobs"),
        ({"logprobs": True, "top_logprobs": True}, "top_logprobs"),
        ({"logprobs": True, "top_logprobs": "2"}, "top_logprobs"),
        ({"logprobs": True, "top_logprobs": 10**400}, "top_logprobs"),
        ({"top_logprobs": 2}, "top_logprobs"),
        ({"logprobs": False, "top_logprobs": 2}, "top_logprobs"),
    ],
)
async def test_a_bad_logprobs_field_is_a_400_naming_it(fields: dict[str, Any], param: str) -> None:
    sent: list[dict[str, Any]] = []
    async with asgi(Gateway({"lp": openai_backend(sent)})) as client:
        reply = await client.post(CHAT, json={"model": "lp", "messages": HI, **fields})
    assert reply.status_code == 400
    error = reply.json()["error"]
    assert (error["param"], error["type"]) == (param, "invalid_request_error")
    assert set(error) == {"message", "type", "param", "code"}
    assert sent == []


@pytest.mark.parametrize("fields", [{"logprobs": True}, {"logprobs": True, "top_logprobs": 3}])
async def test_toward_a_backend_without_logprobs_it_is_a_400_naming_them(
    fields: dict[str, Any],
) -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    claude = Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=upstream)
    async with asgi(Gateway({"claude": claude})) as client:
        reply = await client.post(CHAT, json={"model": "claude", "messages": HI, **fields})
    assert reply.status_code == 400
    assert "logprobs is not supported by anthropic" in reply.json()["error"]["message"]
    assert sent == []


# --- the stream encoder ----------------------------------------------------------------------


def chunks_of(data: bytes) -> list[dict[str, Any]]:
    return [
        json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: {")
    ]


def test_a_held_text_goes_out_before_the_finish_and_before_an_error() -> None:
    request = ClientRequest("m", LangMessages(), options={"logprobs": True}, stream=True)
    result = LangResult(prompt="", messages=LangMessages([LangMessage("assistant", "ab")]))
    encoder = OpenAIChat().encoder(request)
    token = TokenLogprob("a", -math.inf)
    out = encoder.event(TextDelta("a", result)) + encoder.event(LogprobsDelta([token], result))
    assert encoder.event(TextDelta("b", result)) == b""  # waits for its tokens
    out += encoder.finish(result)
    deltas = [(c["choices"][0]["delta"], c["choices"][0]["logprobs"]) for c in chunks_of(out)]
    entry = {"token": "a", "logprob": -9999.0, "bytes": None, "top_logprobs": []}
    assert deltas == [
        ({"role": "assistant", "content": ""}, None),
        ({"content": "a"}, {"content": [entry], "refusal": None}),
        ({"content": "b"}, None),
        ({}, None),
    ]
    failing = OpenAIChat().encoder(request)
    failing.event(TextDelta("c", result))
    broken = failing.error(GatewayError(502, "upstream", "gone"))
    assert [c.get("choices", [{}])[0].get("delta") for c in chunks_of(broken)] == [
        {"role": "assistant", "content": ""},
        {"content": "c"},
        None,
    ]


@pytest.mark.parametrize("stream", [True, False])
async def test_a_backends_hostile_logprobs_are_an_error_of_ours_not_a_crash(stream: bool) -> None:
    chunk = {
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": {"content": "a"}, "logprobs": {"content": "a"}}],
    }
    streamed = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
    choice = {"message": {"content": "a"}, "logprobs": {"content": "a"}, "finish_reason": "stop"}
    whole = json.dumps({"model": "gpt-4o-mini", "choices": [choice]}).encode()
    gateway = Gateway({"lp": openai_backend([], (streamed, whole), stream=stream)})
    body = {"model": "lp", "messages": HI, "logprobs": True, "stream": stream}
    async with asgi(gateway) as client:
        reply = await client.post(CHAT, json=body)
    assert reply.status_code == 502  # nothing went out before the backend's first output
    assert reply.json()["error"] == {
        "message": "the backend failed or could not be reached",
        "type": "server_error",
        "param": None,
        "code": None,
    }
