"""The official ``openai`` SDK against the gateway (uvicorn on 127.0.0.1), scripted backends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..vendor_sdks import openai
from .harness import served

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
TWO_CALLS = {
    "text": "Checking both.",
    "function_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_oslo"},
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_paris"},
    ],
}
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0) as sdk:
        yield sdk


def route(turns: list[Any], name: str = "scripted") -> Lang:
    lang = Lang.scripted(turns)
    GATEWAY.routes[name] = lang
    return lang


def test_a_whole_answer_comes_back_as_a_chat_completion(client: openai.OpenAI) -> None:
    route([{"thinking": "Easy.", "text": "Hello there"}])
    completion = client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "Hi"}]
    )
    choice = completion.choices[0]
    assert completion.object == "chat.completion"
    assert completion.model == "scripted"
    assert choice.message.content == "Hello there"
    assert choice.message.model_extra == {"reasoning_content": "Easy."}
    assert choice.finish_reason == "stop"
    assert completion.usage is not None
    assert completion.usage.completion_tokens == 4


def test_a_streamed_answer_has_the_official_chunk_shapes(client: openai.OpenAI) -> None:
    route([{"thinking": "Let me think.", "text": "Hello there, friend"}])
    chunks = list(
        client.chat.completions.create(
            model="scripted",
            messages=[{"role": "user", "content": "Hi"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant"
    assert "".join(d.content or "" for d in deltas) == "Hello there, friend"
    reasoning = "".join((d.model_extra or {}).get("reasoning_content", "") for d in deltas)
    assert reasoning == "Let me think."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == 8


def test_the_sdk_stream_helper_rebuilds_the_same_message(client: openai.OpenAI) -> None:
    route([TWO_CALLS, TWO_CALLS])
    ask = {"model": "scripted", "messages": [{"role": "user", "content": "Oslo, Paris?"}]}
    whole = client.chat.completions.create(**ask, tools=[WEATHER]).choices[0].message
    with client.chat.completions.stream(**ask, tools=[WEATHER]) as stream:
        for _ in stream:
            pass
        streamed = stream.get_final_completion().choices[0].message
    assert streamed.content == whole.content == "Checking both."
    expected = [
        ("call_oslo", "get_weather", '{"city": "Oslo"}'),
        ("call_paris", "get_weather", '{"city": "Paris"}'),
    ]
    for message in (streamed, whole):
        assert message.tool_calls is not None
        assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls] == (
            expected
        )


def test_a_two_round_tool_loop_with_parallel_calls(client: openai.OpenAI) -> None:
    lang = route([TWO_CALLS, "Oslo 2°, Paris 11°."])
    messages: list[Any] = [{"role": "user", "content": "Weather in Oslo and Paris?"}]
    first = client.chat.completions.create(
        model="scripted", messages=messages, tools=[WEATHER], parallel_tool_calls=True
    )
    assert first.choices[0].finish_reason == "tool_calls"
    calls = first.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name) for c in calls] == [
        ("call_oslo", "get_weather"),
        ("call_paris", "get_weather"),
    ]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages += [
        {"role": "tool", "tool_call_id": "call_oslo", "content": "2°"},
        {"role": "tool", "tool_call_id": "call_paris", "content": "11°"},
    ]
    with client.chat.completions.stream(model="scripted", messages=messages, tools=[WEATHER]) as s:
        final = s.get_final_completion()
    assert final.choices[0].message.content == "Oslo 2°, Paris 11°."
    first_request, second_request = lang.requests
    assert first_request.tools[0]["name"] == "get_weather"
    assert first_request.options.parallel_tool_calls is True
    sent = second_request.messages
    assert [c.id for c in sent[1].tool_calls] == ["call_oslo", "call_paris"]
    assert [(m.role, m.tool_call_id, m.content) for m in sent[2:]] == [
        ("tool", "call_oslo", "2°"),
        ("tool", "call_paris", "11°"),
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", "none"),
        ("auto", "auto"),
        ("required", "required"),
        ({"type": "function", "function": {"name": "get_weather"}}, {"name": "get_weather"}),
    ],
)
def test_tool_choice_reaches_the_backend(client: openai.OpenAI, choice: Any, expected: Any) -> None:
    lang = route(["ok"])
    client.chat.completions.create(
        model="scripted",
        messages=[{"role": "user", "content": "Hi"}],
        tools=[WEATHER],
        tool_choice=choice,
        temperature=0.25,
        max_tokens=77,
        stop=["END"],
        reasoning_effort="high",
    )
    options = lang.requests[0].options
    assert options.thinking == "high"
    assert options.function_call == expected
    assert (options.temperature, options.max_tokens, options.stop) == (0.25, 77, ["END"])
    assert options.auto_execute is False


def test_an_unknown_model_is_a_404_model_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "Hi"}])
    assert caught.value.code == "model_not_found"
    assert caught.value.param == "model"


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"tool_choice": {"type": "function", "function": {"name": "other"}}}, "tool_choice"),
        ({"temperature": "hot"}, "temperature"),
        (
            {"tools": [{"type": "function", "function": {"description": "x"}}]},
            "tools[0].function.name",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
            "messages[0].content[0].image_url",
        ),
        ({"response_format": {"type": "json_object"}}, "response_format"),
    ],
)
def test_a_bad_request_is_a_400_naming_the_field(
    client: openai.OpenAI, extra: dict[str, Any], param: str
) -> None:
    lang = route(["never sent"])
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "Hi"}], "tools": [WEATHER]}
    body.update(extra)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="scripted", **body)
    assert caught.value.param == param
    assert caught.value.type == "invalid_request_error"
    assert lang.requests == []


def _openai_backend(handler: Any) -> Lang:
    transport = httpx.MockTransport(handler)
    return Lang.openai(
        api_key="sk-upstream-secret",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=transport),
    )


def test_an_upstream_429_keeps_its_retry_after(client: openai.OpenAI) -> None:
    GATEWAY.routes["limited"] = _openai_backend(
        lambda request: httpx.Response(
            429, json={"error": {"message": "slow down"}}, headers={"retry-after": "7"}
        )
    )
    with pytest.raises(openai.RateLimitError) as caught:
        client.chat.completions.create(
            model="limited", messages=[{"role": "user", "content": "Hi"}]
        )
    assert caught.value.response.headers["retry-after"] == "7"
    assert "sk-upstream-secret" not in caught.value.response.text


def test_an_upstream_cut_mid_stream_breaks_the_clients_stream(client: openai.OpenAI) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}
    cut = b"data: " + json.dumps(chunk).encode() + b"\n\n"  # no finish, no [DONE]
    GATEWAY.routes["cut"] = _openai_backend(
        lambda request: httpx.Response(
            200, content=cut, headers={"content-type": "text/event-stream"}
        )
    )
    received: list[str] = []
    stream = client.chat.completions.create(
        model="cut", messages=[{"role": "user", "content": "Hi"}], stream=True
    )
    with pytest.raises(openai.APIError):
        received.extend(c.delta.content or "" for part in stream for c in part.choices)
    assert "".join(received) == "Hel"


def test_a_chunked_upload_over_the_limit_is_a_413(base_url: str) -> None:
    lang = route(["never sent"])
    GATEWAY.max_body_bytes = 1000
    try:
        parts = (b" " * 100 for _ in range(50))  # a generator: sent chunked, no length given
        reply = httpx.post(
            base_url + "/v1/chat/completions",
            content=parts,
            headers={"content-type": "application/json"},
        )
    finally:
        GATEWAY.max_body_bytes = 8 * 1024 * 1024
    assert reply.status_code == 413
    assert reply.json()["error"]["type"] == "invalid_request_error"
    assert lang.requests == []


def test_models_lists_the_routes(client: openai.OpenAI) -> None:
    route(["x"], name="listed")
    names = [m.id for m in client.models.list()]
    assert "listed" in names
