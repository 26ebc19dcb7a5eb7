"""The official ``anthropic`` SDK against the gateway (uvicorn on 127.0.0.1), scripted backends."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..vendor_sdks import anthropic
from .harness import served

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TWO_CALLS = {
    "thinking": "Two cities.",
    "text": "Checking both.",
    "function_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "toolu_oslo"},
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "toolu_paris"},
    ],
}
HI = [{"role": "user", "content": "Hi"}]
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(base_url: str) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=base_url, api_key="unused", max_retries=0) as sdk:
        yield sdk


def route(turns: list[Any], name: str = "scripted") -> Lang:
    lang = Lang.scripted(turns)
    GATEWAY.routes[name] = lang
    return lang


def test_a_whole_answer_comes_back_as_a_message(client: anthropic.Anthropic) -> None:
    route([{"thinking": "Easy.", "text": "Hello there"}])
    message = client.messages.create(model="scripted", max_tokens=100, messages=HI)
    assert [block.type for block in message.content] == ["thinking", "text"]
    assert message.content[0].thinking == "Easy."  # type: ignore[union-attr]
    assert message.content[1].text == "Hello there"  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn"
    assert message.usage.output_tokens == 4


def test_a_streamed_answer_has_the_full_event_sequence(client: anthropic.Anthropic) -> None:
    route([{"thinking": "Let me think.", "text": "Hello there, friend"}])
    events = list(
        client.messages.create(model="scripted", max_tokens=100, messages=HI, stream=True)
    )
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start"
    assert kinds[-2:] == ["message_delta", "message_stop"]
    starts = [e.content_block.type for e in events if e.type == "content_block_start"]
    assert starts == ["thinking", "text"]
    assert kinds.count("content_block_stop") == 2
    text = "".join(
        e.delta.text
        for e in events
        if e.type == "content_block_delta" and e.delta.type == "text_delta"
    )  # type: ignore[union-attr]
    assert text == "Hello there, friend"
    delta = events[-2]
    assert delta.delta.stop_reason == "end_turn"  # type: ignore[union-attr]
    assert delta.usage.output_tokens == 8  # type: ignore[union-attr]


def test_the_sdk_stream_helper_rebuilds_the_same_message(client: anthropic.Anthropic) -> None:
    route([TWO_CALLS, TWO_CALLS])
    ask: dict[str, Any] = {
        "model": "scripted",
        "max_tokens": 100,
        "messages": HI,
        "tools": [WEATHER],
    }
    whole = client.messages.create(**ask)
    with client.messages.stream(**ask) as stream:
        streamed = stream.get_final_message()
    assert streamed.model_dump(exclude={"id"}) == whole.model_dump(exclude={"id"})
    assert [(b.type, getattr(b, "input", None)) for b in whole.content] == [
        ("thinking", None),
        ("text", None),
        ("tool_use", {"city": "Oslo"}),
        ("tool_use", {"city": "Paris"}),
    ]
    assert whole.stop_reason == "tool_use"


def test_a_two_round_tool_loop_with_parallel_calls(client: anthropic.Anthropic) -> None:
    lang = route([TWO_CALLS, "Oslo 2°, Paris 11°."])
    messages: list[Any] = [{"role": "user", "content": "Weather in Oslo and Paris?"}]
    ask: dict[str, Any] = {"model": "scripted", "max_tokens": 100, "tools": [WEATHER]}
    first = client.messages.create(**ask, messages=messages)
    calls = [b for b in first.content if b.type == "tool_use"]
    assert [(c.id, c.name) for c in calls] == [
        ("toolu_oslo", "get_weather"),
        ("toolu_paris", "get_weather"),
    ]
    messages.append({"role": "assistant", "content": [b.model_dump() for b in first.content]})
    results = [
        {"type": "tool_result", "tool_use_id": "toolu_oslo", "content": "2°"},
        {"type": "tool_result", "tool_use_id": "toolu_paris", "content": "11°", "is_error": True},
    ]
    messages.append({"role": "user", "content": results})
    with client.messages.stream(**ask, messages=messages) as stream:
        final = stream.get_final_message()
    assert final.content[0].text == "Oslo 2°, Paris 11°."  # type: ignore[union-attr]
    sent = lang.requests[1].messages
    assert [c.id for c in sent[1].tool_calls] == ["toolu_oslo", "toolu_paris"]
    assert [(m.tool_call_id, m.content, m.is_error) for m in sent[2:]] == [
        ("toolu_oslo", "2°", False),
        ("toolu_paris", "11°", True),
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ({"type": "none"}, "none"),
        ({"type": "auto"}, "auto"),
        ({"type": "any"}, "required"),
        ({"type": "tool", "name": "get_weather"}, {"name": "get_weather"}),
    ],
)
def test_tool_choice_reaches_the_backend(
    client: anthropic.Anthropic, choice: Any, expected: Any
) -> None:
    lang = route(["ok"])
    client.messages.create(
        model="scripted",
        max_tokens=77,
        messages=HI,
        tools=[WEATHER],  # type: ignore[list-item]
        tool_choice={**choice, "disable_parallel_tool_use": True},
        system="Be brief.",
        stop_sequences=["END"],
        thinking={"type": "enabled", "budget_tokens": 2048},
    )
    request = lang.requests[0]
    options = request.options
    assert options.function_call == expected
    assert options.parallel_tool_calls is False
    assert (options.max_tokens, options.stop, options.thinking) == (77, ["END"], 2048)
    assert (request.messages[0].role, request.messages[0].content) == ("system", "Be brief.")


def test_an_unknown_model_is_a_404_not_found_error(client: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(model="nope", max_tokens=10, messages=HI)
    assert caught.value.body["error"]["type"] == "not_found_error"  # type: ignore[index]


def test_a_bad_request_is_an_invalid_request_error(client: anthropic.Anthropic) -> None:
    route(["never sent"])
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="scripted",
            max_tokens=10,
            messages=HI,
            tools=[WEATHER],  # type: ignore[list-item]
            tool_choice={"type": "tool", "name": "other"},
        )
    error = caught.value.body["error"]  # type: ignore[index]
    assert error["type"] == "invalid_request_error"
    assert "other" in error["message"]


def _anthropic_backend(handler: Any) -> Lang:
    transport = httpx.MockTransport(handler)
    return Lang.anthropic(
        api_key="sk-ant-upstream-secret",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=transport),
    )


@pytest.mark.parametrize(
    ("upstream", "status", "kind"),
    [(529, 529, "overloaded_error"), (500, 502, "api_error"), (401, 502, "api_error")],
)
def test_upstream_errors_keep_their_meaning(
    client: anthropic.Anthropic, upstream: int, status: int, kind: str
) -> None:
    body = {"type": "error", "error": {"type": "x", "message": "key sk-ant-upstream-secret bad"}}
    GATEWAY.routes["failing"] = _anthropic_backend(lambda r: httpx.Response(upstream, json=body))
    with pytest.raises(anthropic.APIStatusError) as caught:
        client.messages.create(model="failing", max_tokens=10, messages=HI)
    assert caught.value.status_code == status
    assert caught.value.body["error"]["type"] == kind  # type: ignore[index]
    assert "secret" not in caught.value.response.text


def test_an_upstream_cut_mid_stream_breaks_the_clients_stream(client: anthropic.Anthropic) -> None:
    fixture = "tests/fixtures/anthropic/text.sse"
    with open(fixture, "rb") as f:
        whole = f.read()
    cut = whole[: whole.index(b"event: content_block_stop")]  # no message_stop
    GATEWAY.routes["cut"] = _anthropic_backend(
        lambda r: httpx.Response(200, content=cut, headers={"content-type": "text/event-stream"})
    )
    with (
        pytest.raises(anthropic.APIStatusError),
        client.messages.stream(model="cut", max_tokens=10, messages=HI) as stream,
    ):
        for _ in stream:
            pass
