"""Clients of one wire on backends of another: every provider's wire behind both front-ends.

Backends are real providers (``Lang.openai``, ``Lang.anthropic``, ``Lang.gemini``,
``Lang.ollama``) whose HTTP goes through ``httpx.MockTransport``, answering with byte-exact
wire bodies and recording what the gateway sent upstream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..seeds import wires
from ..vendor_sdks import anthropic, openai
from .harness import served

WIRES, Body, recording_client = wires.WIRES, wires.Body, wires.recording_client

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
OPENAI_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": PARAMETERS}}
ANTHROPIC_TOOL = {"name": "get_weather", "input_schema": PARAMETERS}
QUESTION = [{"role": "user", "content": "Weather in Oslo and Rome?"}]
SIGNATURE = "EqQBCkYIBxgCKkBzaWduYXR1cmUtb25l+/Tk9QxQ7vL2=="
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def openai_client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=base_url + "/v1", api_key="-", max_retries=0) as client:
        yield client


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def anthropic_client(base_url: str) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=base_url, api_key="-", max_retries=0) as client:
        yield client


def _backend(wire: str, answers: list[bytes], sent: list[Body], **options: Any) -> Lang:
    client = recording_client(WIRES[wire], answers, sent, over_socket=False)
    lang = WIRES[wire].make(client)
    if options:
        lang.options = options
    GATEWAY.routes[wire] = lang
    return lang


def _fixture(path: str) -> bytes:
    return (FIXTURES / path).read_bytes()


CALLS = [
    ("c_oslo", "get_weather", '{"city": "Oslo"}'),
    ("c_rome", "get_weather", '{"city": "Rome"}'),
]


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_an_openai_client_runs_a_tool_round_on_every_backend(
    openai_client: openai.OpenAI, wire: str
) -> None:
    sent: list[Body] = []
    _backend(wire, [WIRES[wire].calls(CALLS, False, "m"), WIRES[wire].text("Sunny.", "m")], sent)
    ask: dict[str, Any] = {"model": wire, "tools": [OPENAI_TOOL]}
    with openai_client.chat.completions.stream(**ask, messages=QUESTION) as stream:
        first = stream.get_final_completion().choices[0]
    assert first.finish_reason == "tool_calls"
    calls = first.message.tool_calls or []
    assert [json.loads(c.function.arguments) for c in calls] == [{"city": "Oslo"}, {"city": "Rome"}]
    results = [
        {"role": "tool", "tool_call_id": c.id, "content": f"{i}°"} for i, c in enumerate(calls)
    ]
    messages = [*QUESTION, first.message.model_dump(exclude_none=True), *results]
    answer = openai_client.chat.completions.create(**ask, messages=messages)
    assert answer.choices[0].message.content == "Sunny."
    assert [json.loads(r) if wire == "gemini" else r for r in WIRES[wire].results(sent[1])] == (
        [{"output": "0°"}, {"output": "1°"}] if wire == "gemini" else ["0°", "1°"]
    )


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_an_anthropic_client_runs_a_tool_round_on_every_backend(
    anthropic_client: anthropic.Anthropic, wire: str
) -> None:
    sent: list[Body] = []
    _backend(wire, [WIRES[wire].calls(CALLS, False, "m"), WIRES[wire].text("Sunny.", "m")], sent)
    ask: dict[str, Any] = {"model": wire, "max_tokens": 500, "tools": [ANTHROPIC_TOOL]}
    with anthropic_client.messages.stream(**ask, messages=QUESTION) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    calls = [b for b in first.content if b.type == "tool_use"]
    assert [c.input for c in calls] == [{"city": "Oslo"}, {"city": "Rome"}]
    results = [
        {"type": "tool_result", "tool_use_id": c.id, "content": f"{i}°"}
        for i, c in enumerate(calls)
    ]
    messages = [
        *QUESTION,
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": results},
    ]
    answer = anthropic_client.messages.create(**ask, messages=messages)
    assert answer.content[0].text == "Sunny."  # type: ignore[union-attr]
    assert len(WIRES[wire].results(sent[1])) == 2


@pytest.mark.parametrize("stream", [False, True])
def test_an_openai_client_keeps_anthropic_thinking_across_a_tool_round(
    openai_client: openai.OpenAI, stream: bool
) -> None:
    sent: list[Body] = []
    answers = [_fixture("anthropic/thinking_tool_use.sse"), WIRES["anthropic"].text("8°", "m")]
    _backend("anthropic", answers, sent, thinking=1024)
    ask: dict[str, Any] = {"model": "anthropic", "tools": [OPENAI_TOOL]}
    if stream:
        with openai_client.chat.completions.stream(**ask, messages=QUESTION) as s:
            message = s.get_final_completion().choices[0].message
    else:
        message = openai_client.chat.completions.create(**ask, messages=QUESTION).choices[0].message
    extra = message.model_extra or {}
    assert extra["reasoning_content"].startswith("The user wants the weather in Oslo.")
    assert [b["signature"] for b in extra["thinking_blocks"]] == [SIGNATURE]
    echoed = message.model_dump(exclude_none=True)
    result = {"role": "tool", "tool_call_id": "toolu_01T", "content": "8°"}
    answer = openai_client.chat.completions.create(**ask, messages=[*QUESTION, echoed, result])
    assert answer.choices[0].message.content == "8°"
    assistant = sent[1]["messages"][1]
    assert [b["type"] for b in assistant["content"]] == ["thinking", "tool_use"]
    assert assistant["content"][0]["signature"] == SIGNATURE
    assert assistant["content"][1]["id"] == "toolu_01T"
    assert sent[1]["messages"][2]["content"][0]["tool_use_id"] == "toolu_01T"


def test_an_anthropic_client_gets_anthropic_signatures_in_its_stream(
    anthropic_client: anthropic.Anthropic,
) -> None:
    sent: list[Body] = []
    answers = [_fixture("anthropic/thinking_tool_use.sse"), WIRES["anthropic"].text("8°", "m")]
    _backend("anthropic", answers, sent, thinking=1024)
    ask: dict[str, Any] = {"model": "anthropic", "max_tokens": 4000, "tools": [ANTHROPIC_TOOL]}
    with anthropic_client.messages.stream(**ask, messages=QUESTION) as stream:
        first = stream.get_final_message()
    assert first.content[0].signature == SIGNATURE  # type: ignore[union-attr]
    messages = [
        *QUESTION,
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01T"}]},
    ]
    anthropic_client.messages.create(**ask, messages=messages)
    assert sent[1]["messages"][1]["content"][0]["signature"] == SIGNATURE


def test_an_anthropic_client_on_gemini_gets_calls_with_stable_ids(
    anthropic_client: anthropic.Anthropic,
) -> None:
    sent: list[Body] = []
    answers = [_fixture("gemini/calls_no_ids.sse"), WIRES["gemini"].text("Done.", "m")]
    _backend("gemini", answers, sent)
    ask: dict[str, Any] = {"model": "gemini", "max_tokens": 500, "tools": [ANTHROPIC_TOOL]}
    with anthropic_client.messages.stream(**ask, messages=QUESTION) as stream:
        first = stream.get_final_message()
    calls = [b for b in first.content if b.type == "tool_use"]
    ids = [c.id for c in calls]
    assert len(set(ids)) == 2
    assert all(i.startswith("call_") for i in ids)
    messages = [
        *QUESTION,
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": ids[1], "content": "Rome: 20°"},
                {"type": "tool_result", "tool_use_id": ids[0], "content": "Oslo: 2°"},
            ],
        },
    ]
    answer = anthropic_client.messages.create(**ask, messages=messages)
    assert answer.content[0].text == "Done."  # type: ignore[union-attr]
    contents = sent[1]["contents"]
    calls_sent = [p["functionCall"]["args"] for p in contents[1]["parts"] if "functionCall" in p]
    assert calls_sent == [{"city": "Oslo"}, {"city": "Rome"}]
    responses = [p["functionResponse"] for p in contents[2]["parts"]]
    # Results are put back in the order of the calls they answer, matched by the minted ids.
    assert [r["response"] for r in responses] == [{"output": "Oslo: 2°"}, {"output": "Rome: 20°"}]


def test_an_upstream_429_reaches_an_anthropic_client_with_retry_after(
    anthropic_client: anthropic.Anthropic,
) -> None:
    def limited(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, json={"error": {"code": 429}}, headers={"retry-after": "3"})

    GATEWAY.routes["gemini"] = Lang.gemini(
        api_key="k",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(limited)),
    )
    with pytest.raises(anthropic.RateLimitError) as caught:
        anthropic_client.messages.create(model="gemini", max_tokens=5, messages=QUESTION)
    assert caught.value.response.headers["retry-after"] == "3"


def test_interleaved_parallel_calls_reach_an_anthropic_client_whole(
    anthropic_client: anthropic.Anthropic,
) -> None:
    sent: list[Body] = []
    _backend("openai", [_fixture("openai/parallel_interleaved.sse")], sent)
    time_tool = {"name": "get_time", "input_schema": {"type": "object", "properties": {}}}
    ask: dict[str, Any] = {"model": "openai", "max_tokens": 500, "messages": QUESTION}
    with anthropic_client.messages.stream(**ask, tools=[ANTHROPIC_TOOL, time_tool]) as stream:
        events = list(stream)
        message = stream.get_final_message()
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    assert calls == [
        ("call_a1", "get_weather", {"city": "Rome"}),
        ("call_b2", "get_time", {"tz": "CET"}),
    ]
    starts = [e.index for e in events if e.type == "content_block_start"]
    stops = [e.index for e in events if e.type == "content_block_stop"]
    assert starts == stops == [0, 1, 2]  # one block after another, never interleaved


@pytest.mark.parametrize("front", ["openai", "anthropic"])
def test_gemini_thought_signatures_ride_in_the_call_ids_and_come_back(
    openai_client: openai.OpenAI, anthropic_client: anthropic.Anthropic, front: str
) -> None:
    sent: list[Body] = []
    answers = [_fixture("gemini/calls_ids_split.sse"), WIRES["gemini"].text("Done.", "m")]
    _backend("gemini", answers, sent)
    if front == "openai":
        ask: dict[str, Any] = {"model": "gemini", "tools": [OPENAI_TOOL]}
        with openai_client.chat.completions.stream(**ask, messages=QUESTION) as stream:
            message = stream.get_final_completion().choices[0].message
        ids = [c.id for c in message.tool_calls or []]
        results = [{"role": "tool", "tool_call_id": i, "content": "2°"} for i in ids]
        echoed = message.model_dump(exclude_none=True)
        openai_client.chat.completions.create(**ask, messages=[*QUESTION, echoed, *results])
    else:
        ask = {"model": "gemini", "max_tokens": 500, "tools": [ANTHROPIC_TOOL]}
        first = anthropic_client.messages.create(**ask, messages=QUESTION)
        ids = [b.id for b in first.content if b.type == "tool_use"]
        blocks = [b.model_dump(exclude_none=True) for b in first.content]
        results = [{"type": "tool_result", "tool_use_id": i, "content": "2°"} for i in ids]
        turns = [{"role": "assistant", "content": blocks}, {"role": "user", "content": results}]
        anthropic_client.messages.create(**ask, messages=[*QUESTION, *turns])
    assert ids[0].startswith("fc_7a__aws_")
    assert ids[1].startswith("fc_7b__aws_")  # Gemini's own call: replayed as Gemini sent it
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


REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"


@pytest.mark.parametrize("stream", [False, True])
def test_redacted_thinking_reaches_an_anthropic_client_whole(
    anthropic_client: anthropic.Anthropic, stream: bool
) -> None:
    _backend("anthropic", [_fixture("anthropic/redacted_thinking.sse")], [], thinking=1024)
    ask: dict[str, Any] = {"model": "anthropic", "max_tokens": 4000, "messages": QUESTION}
    if stream:
        with anthropic_client.messages.stream(**ask) as s:
            message = s.get_final_message()
    else:
        message = anthropic_client.messages.create(**ask)
    assert [b.type for b in message.content] == ["redacted_thinking", "thinking", "text"]
    assert message.content[0].data == REDACTED  # type: ignore[union-attr]
    assert message.content[1].signature == "ErUBCkYIBxgCIkB0d28tc2lnbmF0dXJl"  # type: ignore[union-attr]


@pytest.mark.parametrize("stream", [False, True])
def test_redacted_thinking_travels_in_openai_thinking_blocks_and_back(
    openai_client: openai.OpenAI, stream: bool
) -> None:
    sent: list[Body] = []
    answers = [_fixture("anthropic/redacted_thinking.sse"), WIRES["anthropic"].text("ok", "m")]
    _backend("anthropic", answers, sent, thinking=1024)
    ask: dict[str, Any] = {"model": "anthropic"}
    if stream:
        with openai_client.chat.completions.stream(**ask, messages=QUESTION) as s:
            message = s.get_final_completion().choices[0].message
    else:
        message = openai_client.chat.completions.create(**ask, messages=QUESTION).choices[0].message
    blocks = (message.model_extra or {})["thinking_blocks"]
    assert [b["type"] for b in blocks] == ["redacted_thinking", "thinking"]
    echoed = message.model_dump(exclude_none=True)
    again = [*QUESTION, echoed, {"role": "user", "content": "And Rome?"}]
    openai_client.chat.completions.create(**ask, messages=again)
    replayed = sent[1]["messages"][1]["content"]
    assert replayed[0] == {"type": "redacted_thinking", "data": REDACTED}
    assert replayed[1]["type"] == "thinking"
