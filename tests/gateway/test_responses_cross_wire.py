"""Responses API clients on Anthropic and Gemini backends, through the gateway.

The official ``openai`` SDK talks to the gateway (uvicorn on 127.0.0.1); each route is a real
provider (``Lang.anthropic``, ``Lang.gemini``) whose HTTP goes over a socket to the local test
server, answering with byte-exact wire bodies and recording what the gateway sent upstream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..seeds import wires
from ..seeds.localserver import local_client
from ..vendor_sdks import openai
from .harness import served_in_loop

WIRES, Body = wires.WIRES, wires.Body
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOOL = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": False,
}
QUESTION = [{"role": "user", "content": "Weather in Oslo and Rome?"}]
CALLS = [
    ("c_oslo", "get_weather", '{"city": "Oslo"}'),
    ("c_rome", "get_weather", '{"city": "Rome"}'),
]
SIGNATURE = "EqQBCkYIBxgCKkBzaWduYXR1cmUtb25l+/Tk9QxQ7vL2=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
BACKENDS = ["anthropic", "gemini"]
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, asyncio.AbstractEventLoop]]:
    with served_in_loop(GATEWAY) as served:
        yield served


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(server: tuple[str, asyncio.AbstractEventLoop]) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server[0] + "/v1", api_key="-", max_retries=0) as sdk:
        yield sdk


@pytest.fixture
def upstreams(server: tuple[str, asyncio.AbstractEventLoop]) -> Iterator[list[httpx.AsyncClient]]:
    """Backends' clients, closed after the test in the loop that used them (stops their server)."""
    clients: list[httpx.AsyncClient] = []
    yield clients
    for upstream in clients:
        asyncio.run_coroutine_threadsafe(upstream.aclose(), server[1]).result(10)


def _route(wire: str, upstream: httpx.AsyncClient, clients: list[httpx.AsyncClient]) -> Lang:
    clients.append(upstream)
    lang = WIRES[wire].make(upstream)
    GATEWAY.routes[wire] = lang
    return lang


def _backend(
    wire: str, answers: list[bytes], clients: list[httpx.AsyncClient], **options: Any
) -> list[Body]:
    """Route ``wire`` to a backend answering with ``answers``; the request bodies it gets."""
    sent: list[Body] = []
    lang = _route(wire, wires.recording_client(WIRES[wire], answers, sent), clients)
    if options:
        lang.options = options
    return sent


def _fixture(path: str) -> bytes:
    return (FIXTURES / path).read_bytes()


def _answer(client: openai.OpenAI, stream: bool, **ask: Any) -> openai.types.responses.Response:
    if not stream:
        return client.responses.create(**ask)
    with client.responses.stream(**ask) as events:
        return events.get_final_response()


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("wire", BACKENDS)
def test_a_text_answer_from_every_backend(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], wire: str, stream: bool
) -> None:
    sent = _backend(wire, [WIRES[wire].text("Sunny in Oslo.", "m")], upstreams)
    response = _answer(client, stream, model=wire, instructions="Be brief.", input="Oslo?")
    assert response.output_text == "Sunny in Oslo."
    assert response.status == "completed"
    assert response.usage is not None
    if wire == "anthropic":
        assert (response.usage.input_tokens, response.usage.output_tokens) == (5, 4)
        # The backend asks Anthropic to cache the prompt (the cache option's default).
        cached = {"cache_control": {"type": "ephemeral"}}
        assert sent[0]["system"] == [{"type": "text", "text": "Be brief.", **cached}]
        assert sent[0]["messages"] == [
            {"role": "user", "content": [{"type": "text", "text": "Oslo?", **cached}]}
        ]
    else:
        assert sent[0]["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
        assert sent[0]["contents"] == [{"role": "user", "parts": [{"text": "Oslo?"}]}]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("wire", BACKENDS)
def test_a_two_round_tool_loop_with_parallel_calls_on_every_backend(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], wire: str, stream: bool
) -> None:
    answers = [WIRES[wire].calls(CALLS, False, "m"), WIRES[wire].text("Oslo 2°, Rome 19°.", "m")]
    sent = _backend(wire, answers, upstreams)
    ask: dict[str, Any] = {"model": wire, "tools": [TOOL], "parallel_tool_calls": True}
    first = _answer(client, stream, **ask, input=QUESTION)
    calls = [item for item in first.output if item.type == "function_call"]
    # Gemini marks its own calls: the mark rides in the call_id and comes back with it.
    assert [(c.call_id.split("__aws_")[0], c.name, json.loads(c.arguments)) for c in calls] == [
        ("c_oslo", "get_weather", {"city": "Oslo"}),
        ("c_rome", "get_weather", {"city": "Rome"}),
    ]
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    outputs = [
        {"type": "function_call_output", "call_id": c.call_id, "output": f"{city}: {i}°"}
        for i, (c, city) in enumerate(zip(calls, ["Oslo", "Rome"], strict=True))
    ]
    second = _answer(client, not stream, **ask, input=[*QUESTION, *echoed, *outputs])
    assert second.output_text == "Oslo 2°, Rome 19°."
    assert len(sent) == 2
    results = WIRES[wire].results(sent[1])
    if wire == "anthropic":
        assert results == ["Oslo: 0°", "Rome: 1°"]
        replayed = [b for b in sent[1]["messages"][1]["content"] if b["type"] == "tool_use"]
        assert [(b["id"], b["input"]) for b in replayed] == [
            ("c_oslo", {"city": "Oslo"}),
            ("c_rome", {"city": "Rome"}),
        ]
        ids = [b["tool_use_id"] for b in sent[1]["messages"][2]["content"]]
        assert ids == ["c_oslo", "c_rome"]
    else:
        assert [json.loads(r) for r in results] == [
            {"output": "Oslo: 0°"},
            {"output": "Rome: 1°"},
        ]
        model_turn = sent[1]["contents"][1]
        assert [p["functionCall"]["id"] for p in model_turn["parts"]] == ["c_oslo", "c_rome"]
        responses = [p["functionResponse"] for p in sent[1]["contents"][2]["parts"]]
        assert [(r["id"], r["name"]) for r in responses] == [
            ("c_oslo", "get_weather"),
            ("c_rome", "get_weather"),
        ]


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("wire", "status", "body", "error"),
    [
        ("anthropic", 429, {"type": "error", "error": {"type": "rate_limit_error"}}, "rate"),
        ("gemini", 429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, "rate"),
        ("anthropic", 529, {"type": "error", "error": {"type": "overloaded_error"}}, "busy"),
        ("gemini", 503, json.loads(_fixture("gemini/error_503.json")), "busy"),
        ("anthropic", 401, {"type": "error", "error": {"type": "authentication_error"}}, "502"),
        ("gemini", 400, json.loads(_fixture("gemini/error_400_schema.json")), "400"),
    ],
)
def test_upstream_errors_keep_their_meaning(
    client: openai.OpenAI,
    upstreams: list[httpx.AsyncClient],
    wire: str,
    status: int,
    body: Body,
    error: str,
    stream: bool,
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers={"retry-after": "3"})

    upstream = local_client(refuse)
    upstreams.append(upstream)
    make = Lang.anthropic if wire == "anthropic" else Lang.gemini
    GATEWAY.routes[wire] = make(api_key="k", model="m", http_client=upstream, max_retries=0)
    expected = {
        "rate": openai.RateLimitError,
        "busy": openai.InternalServerError,
        "502": openai.InternalServerError,
        "400": openai.BadRequestError,
    }[error]
    with pytest.raises(expected) as caught:
        _answer(client, stream, model=wire, input="Hi")
    reply = caught.value.response
    assert reply.status_code == {"rate": 429, "busy": 503, "502": 502, "400": 400}[error]
    assert set(reply.json()["error"]) == {"message", "type", "param", "code"}
    if error == "rate":
        assert reply.headers["retry-after"] == "3"


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_thinking_comes_back_signed_from_a_reasoning_item(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], stream: bool
) -> None:
    answers = [_fixture("anthropic/thinking_tool_use.sse"), WIRES["anthropic"].text("8°", "m")]
    sent = _backend("anthropic", answers, upstreams, thinking=1024)
    ask: dict[str, Any] = {"model": "anthropic", "tools": [TOOL]}
    first = _answer(client, stream, **ask, input=QUESTION)
    reasoning, call = first.output
    assert reasoning.type == "reasoning"
    assert reasoning.summary[0].text.startswith("The user wants the weather in Oslo.")
    assert reasoning.encrypted_content is not None
    assert SIGNATURE not in reasoning.encrypted_content  # opaque to the client
    assert call.type == "function_call"
    assert call.call_id == "toolu_01T"
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    result = {"type": "function_call_output", "call_id": "toolu_01T", "output": "8°"}
    second = _answer(client, stream, **ask, input=[*QUESTION, *echoed, result])
    assert second.output_text == "8°"
    assistant = sent[1]["messages"][1]
    assert [b["type"] for b in assistant["content"]] == ["thinking", "tool_use"]
    assert assistant["content"][0]["signature"] == SIGNATURE
    assert assistant["content"][0]["thinking"] == reasoning.summary[0].text
    assert assistant["content"][1]["id"] == "toolu_01T"
    assert sent[1]["messages"][2]["content"][0]["tool_use_id"] == "toolu_01T"


@pytest.mark.parametrize("stream", [False, True])
def test_redacted_thinking_travels_in_reasoning_items_and_back(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], stream: bool
) -> None:
    answers = [_fixture("anthropic/redacted_thinking.sse"), WIRES["anthropic"].text("ok", "m")]
    sent = _backend("anthropic", answers, upstreams, thinking=1024)
    first = _answer(client, stream, model="anthropic", input=QUESTION)
    assert [item.type for item in first.output] == ["reasoning", "reasoning", "message"]
    assert [item.summary for item in first.output if item.type == "reasoning"] == [[], []]
    assert first.output_text == "The answer is 42."
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    again = [*QUESTION, *echoed, {"role": "user", "content": "And Rome?"}]
    _answer(client, stream, model="anthropic", input=again)
    replayed = sent[1]["messages"][1]["content"]
    assert replayed[0] == {"type": "redacted_thinking", "data": REDACTED}
    assert replayed[1] == {
        "type": "thinking",
        "thinking": "",
        "signature": "ErUBCkYIBxgCIkB0d28tc2lnbmF0dXJl",
    }
    assert replayed[2] == {"type": "text", "text": "The answer is 42."}


@pytest.mark.parametrize("stream", [False, True])
def test_gemini_thought_signatures_ride_in_the_call_ids_and_come_back(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], stream: bool
) -> None:
    answers = [_fixture("gemini/calls_ids_split.sse"), WIRES["gemini"].text("Done.", "m")]
    sent = _backend("gemini", answers, upstreams)
    ask: dict[str, Any] = {"model": "gemini", "tools": [TOOL]}
    first = _answer(client, stream, **ask, input=QUESTION)
    assert first.output[0].type == "reasoning"
    assert first.output[0].summary[0].text.startswith("**Planning the lookups**")
    ids = [item.call_id for item in first.output if item.type == "function_call"]
    assert ids[0].startswith("fc_7a__aws_")
    assert ids[1].startswith("fc_7b__aws_")
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    outputs = [{"type": "function_call_output", "call_id": i, "output": "2°"} for i in ids]
    _answer(client, stream, **ask, input=[*QUESTION, *echoed, *outputs])
    model_turn = next(c for c in sent[1]["contents"] if c["role"] == "model")
    calls = [p for p in model_turn["parts"] if "functionCall" in p]
    assert calls[0]["thoughtSignature"] == "CtMBAb4+9vSIGoslo=="
    assert [c["functionCall"]["id"] for c in calls] == ["fc_7a", "fc_7b"]
    responses = [
        p["functionResponse"]
        for c in sent[1]["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]
    assert [r["id"] for r in responses] == ["fc_7a", "fc_7b"]


@pytest.mark.parametrize("wire", BACKENDS)
def test_an_answer_cut_at_the_token_limit_is_an_incomplete_response(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], wire: str
) -> None:
    cut = WIRES[wire].calls(CALLS[:1], True, "m")
    _backend(wire, [cut, cut], upstreams)
    ask: dict[str, Any] = {"model": wire, "tools": [TOOL], "input": QUESTION}
    whole = client.responses.create(**ask, max_output_tokens=16)
    events = list(client.responses.create(**ask, max_output_tokens=16, stream=True))
    assert events[-1].type == "response.incomplete"
    assert not any(e.type == "response.completed" for e in events)
    for response in (whole, events[-1].response):
        assert response.status == "incomplete"
        assert response.incomplete_details is not None
        assert response.incomplete_details.reason == "max_output_tokens"
        assert [item.type for item in response.output] == ["function_call"]


@pytest.mark.parametrize("stream", [False, True])
def test_an_openai_responses_backend_gets_its_own_items_back_verbatim(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], stream: bool
) -> None:
    sent: list[Body] = []
    answers = [_fixture("openai_responses/reasoning_calls.sse")]
    answers.append(_fixture("openai_responses/text.sse"))
    upstream = wires.recording_client(WIRES["openai"], answers, sent)
    upstreams.append(upstream)
    GATEWAY.routes["o3"] = Lang.openai("o3", api_key="k", api="responses", http_client=upstream)
    first = _answer(client, stream, model="o3", tools=[TOOL], input=QUESTION)
    calls = [item for item in first.output if item.type == "function_call"]
    assert [c.call_id for c in calls] == ["call_Oslo7Qm2", "call_Rome9Xv4"]
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    outputs = [
        {"type": "function_call_output", "call_id": c.call_id, "output": "4°"} for c in calls
    ]
    second = _answer(client, stream, model="o3", tools=[TOOL], input=[*QUESTION, *echoed, *outputs])
    assert second.output_text == "Oslo is 4 °C and Rome 19 °C."
    kept = json.loads(_fixture("openai_responses/reasoning_calls.json"))["output"]
    replayed = sent[1]["input"][1:]
    # The backend's own turn, as it sent it (reasoning with its encrypted content first), then
    # one output per call_id.
    assert [i["type"] for i in replayed] == [i["type"] for i in kept] + [
        "function_call_output",
        "function_call_output",
    ]
    assert replayed[0]["encrypted_content"] == kept[0]["encrypted_content"]
    assert [i.get("id") for i in replayed[: len(kept)]] == [i["id"] for i in kept]
    assert [i["call_id"] for i in replayed[len(kept) :]] == ["call_Oslo7Qm2", "call_Rome9Xv4"]


@pytest.mark.parametrize(
    ("wire", "fixture", "text"),
    [
        ("anthropic", "anthropic/error_overloaded.sse", "Sure, "),
        ("gemini", "gemini/error_in_stream.sse", "Partial"),
    ],
)
def test_an_error_mid_stream_breaks_the_clients_stream(
    client: openai.OpenAI, upstreams: list[httpx.AsyncClient], wire: str, fixture: str, text: str
) -> None:
    upstream = wires.recording_client(WIRES[wire], [_fixture(fixture)], [])
    upstreams.append(upstream)
    make = Lang.anthropic if wire == "anthropic" else Lang.gemini
    GATEWAY.routes[wire] = make(api_key="k", model="m", http_client=upstream, max_retries=0)
    events: list[Any] = []
    with pytest.raises(openai.APIError) as caught:
        events.extend(client.responses.create(model=wire, input="Hi", stream=True))
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == text
    assert caught.value.body == {
        "message": "the backend is overloaded",
        "type": "server_error",
        "param": None,
        "code": None,
    }
