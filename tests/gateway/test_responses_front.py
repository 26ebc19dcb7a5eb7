"""The official ``openai`` SDK's Responses API against the gateway (uvicorn on 127.0.0.1)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..vendor_sdks import openai
from .harness import served

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "strict": False,
}
TWO_CALLS = {
    "thinking": "Two cities.",
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


@functools.cache
def stream_event() -> TypeAdapter[Any]:
    """The SDK's stream event union as a validator, built on first use (the SDK loads slowly)."""
    return TypeAdapter(openai.types.responses.ResponseStreamEvent)


def route(turns: list[Any], name: str = "scripted") -> Lang:
    lang = Lang.scripted(turns)
    GATEWAY.routes[name] = lang
    return lang


def test_a_whole_answer_is_a_response_object_the_sdk_validates(client: openai.OpenAI) -> None:
    route([{"thinking": "Easy.", "text": "Hello there"}])
    raw = client.responses.with_raw_response.create(model="scripted", input="Hi")
    # every field, strictly
    response = openai.types.responses.Response.model_validate(raw.http_response.json())
    assert response.object == "response"
    assert response.model == "scripted"
    assert response.status == "completed"
    assert response.output_text == "Hello there"
    assert [item.type for item in response.output] == ["reasoning", "message"]
    reasoning = response.output[0]
    assert reasoning.type == "reasoning"
    assert [s.text for s in reasoning.summary] == ["Easy."]
    # Set even when the backend signed nothing, as OpenAI sets it: stateless clients send
    # back only reasoning items that have it.
    assert reasoning.encrypted_content is not None
    assert response.usage is not None
    assert response.usage.output_tokens == 4
    assert response.store is False


def test_a_stream_has_the_official_event_sequence(client: openai.OpenAI) -> None:
    route([{"thinking": "Let me think.", "text": "Hello there, friend"}])
    events = list(client.responses.create(model="scripted", input="Hi", stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert [e.type for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        *["response.reasoning_summary_text.delta"] * 2,  # the backend's chunks of 8 characters
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * 3,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "Hello there, friend"
    completed = events[-1]
    assert completed.type == "response.completed"
    assert completed.response.output_text == "Hello there, friend"
    assert completed.response.usage is not None
    assert completed.response.usage.output_tokens == 8
    added = [e.item.id for e in events if e.type == "response.output_item.added"]
    assert [item.id for item in completed.response.output] == added


def test_the_sdk_stream_helper_rebuilds_the_same_response(client: openai.OpenAI) -> None:
    route([TWO_CALLS, TWO_CALLS])
    ask: dict[str, Any] = {"model": "scripted", "input": "Oslo, Paris?", "tools": [WEATHER]}
    whole = client.responses.create(**ask)
    with client.responses.stream(**ask) as stream:
        arguments = [e.delta for e in stream if e.type == "response.function_call_arguments.delta"]
        streamed = stream.get_final_response()
    assert "".join(arguments) == '{"city": "Oslo"}{"city": "Paris"}'
    expected = [
        ("call_oslo", "get_weather", '{"city": "Oslo"}'),
        ("call_paris", "get_weather", '{"city": "Paris"}'),
    ]
    for response in (whole, streamed):
        assert response.output_text == "Checking both."
        calls = [i for i in response.output if i.type == "function_call"]
        assert [(c.call_id, c.name, c.arguments) for c in calls] == expected
        assert [i.type for i in response.output] == [
            "reasoning",
            "message",
            "function_call",
            "function_call",
        ]


def test_a_two_round_tool_loop_with_parallel_calls(client: openai.OpenAI) -> None:
    lang = route([TWO_CALLS, "Oslo 2°, Paris 11°."])
    question = {"role": "user", "content": "Weather in Oslo and Paris?"}
    first = client.responses.create(
        model="scripted",
        instructions="Be brief.",
        input=[question],
        tools=[WEATHER],
        parallel_tool_calls=True,
    )
    calls = [i for i in first.output if i.type == "function_call"]
    assert [(c.call_id, c.name) for c in calls] == [
        ("call_oslo", "get_weather"),
        ("call_paris", "get_weather"),
    ]
    echoed = [item.model_dump(exclude_none=True) for item in first.output]
    outputs = [
        {"type": "function_call_output", "call_id": "call_paris", "output": "11°"},
        {"type": "function_call_output", "call_id": "call_oslo", "output": "2°"},
    ]
    ask: dict[str, Any] = {"model": "scripted", "instructions": "Be brief.", "tools": [WEATHER]}
    with client.responses.stream(**ask, input=[question, *echoed, *outputs]) as stream:
        final = stream.get_final_response()
    assert final.output_text == "Oslo 2°, Paris 11°."
    first_request, second_request = lang.requests
    assert first_request.tools[0]["name"] == "get_weather"
    assert first_request.options.parallel_tool_calls is True
    sent = second_request.messages
    assert [(m.role, m.content) for m in sent[:2]] == [
        ("system", "Be brief."),
        ("user", "Weather in Oslo and Paris?"),
    ]
    assert sent[2].thinking == "Two cities."
    assert sent[2].content == "Checking both."
    assert [c.id for c in sent[2].tool_calls] == ["call_oslo", "call_paris"]
    assert [c.arguments for c in sent[2].tool_calls] == [{"city": "Oslo"}, {"city": "Paris"}]
    # Results in the order of the calls they answer, whatever order the client sent them in.
    assert [(m.role, m.tool_call_id, m.content) for m in sent[3:]] == [
        ("tool", "call_oslo", "2°"),
        ("tool", "call_paris", "11°"),
    ]


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("none", "none"),
        ("auto", "auto"),
        ("required", "required"),
        ({"type": "function", "name": "get_weather"}, {"name": "get_weather"}),
    ],
)
def test_options_reach_the_backend(client: openai.OpenAI, choice: Any, expected: Any) -> None:
    lang = route(["ok"])
    response = client.responses.create(
        model="scripted",
        input="Hi",
        tools=[WEATHER],
        tool_choice=choice,
        parallel_tool_calls=False,
        temperature=0.25,
        top_p=0.5,
        max_output_tokens=77,
        reasoning={"effort": "xhigh", "summary": "auto"},
        store=False,
        include=["reasoning.encrypted_content"],
    )
    options = lang.requests[0].options
    assert options.function_call == expected
    assert options.parallel_tool_calls is False
    assert (options.temperature, options.top_p, options.max_tokens) == (0.25, 0.5, 77)
    assert options.thinking == "high"
    assert options.auto_execute is False
    assert response.to_dict()["tool_choice"] == choice
    assert (response.parallel_tool_calls, response.max_output_tokens) == (False, 77)


def test_a_result_in_parts_and_a_developer_message_are_read(client: openai.OpenAI) -> None:
    lang = route(["ok"])
    client.responses.create(
        model="scripted",
        input=[
            {"type": "message", "role": "developer", "content": "Answer in French."},
            {"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
            {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{}"},
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": [{"type": "input_text", "text": "Sunny"}],
            },
        ],
        tools=[WEATHER],
    )
    sent = lang.requests[0].messages
    assert [(m.role, m.content) for m in sent] == [
        ("system", "Answer in French."),
        ("user", "Weather?"),
        ("assistant", ""),
        ("tool", "Sunny"),
    ]
    assert sent[2].tool_calls[0].id == "c1"
    assert sent[3].tool_call_id == "c1"


def test_an_unknown_model_is_a_404_model_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.responses.create(model="nope", input="Hi")
    assert caught.value.code == "model_not_found"
    assert caught.value.param == "model"
    assert caught.value.type == "invalid_request_error"


def test_retrieving_a_response_is_a_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve("resp_123")


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"previous_response_id": "resp_1"}, "previous_response_id"),
        ({"conversation": "conv_1"}, "conversation"),
        ({"store": True}, "store"),
        ({"background": True}, "background"),
        ({"tools": [{"type": "web_search"}]}, "tools[0].type"),
        ({"tools": [{"type": "function", "parameters": {}}]}, "tools[0].name"),
        ({"tool_choice": {"type": "function", "name": "other"}}, "tool_choice.name"),
        ({"tool_choice": {"type": "web_search_preview"}}, "tool_choice"),
        ({"include": ["file_search_call.results"]}, "include[0]"),
        ({"text": {"format": {"type": "json_object"}}}, "text.format"),
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort"),
        ({"temperature": "hot"}, "temperature"),
        ({"input": []}, "input"),
        ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "input[0].type"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image"}]}]},
            "input[0].content[0].image_url",
        ),
        (
            {"input": [{"type": "function_call", "name": "f", "arguments": "{}"}]},
            "input[0].call_id",
        ),
        ({"input": [{"role": "critic", "content": "x"}]}, "input[0].role"),
    ],
)
def test_a_bad_or_unsupported_request_is_a_400_naming_the_field(
    client: openai.OpenAI, extra: dict[str, Any], param: str
) -> None:
    lang = route(["never sent"])
    body: dict[str, Any] = {"input": "Hi", "tools": [WEATHER]}
    body.update(extra)
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="scripted", **body)
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


@pytest.mark.parametrize("stream", [False, True])
def test_an_upstream_429_keeps_its_retry_after(client: openai.OpenAI, stream: bool) -> None:
    GATEWAY.routes["limited"] = _openai_backend(
        lambda request: httpx.Response(
            429, json={"error": {"message": "slow down"}}, headers={"retry-after": "7"}
        )
    )
    with pytest.raises(openai.RateLimitError) as caught:
        client.responses.create(model="limited", input="Hi", stream=stream)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.type == "rate_limit_error"
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
    stream = client.responses.create(model="cut", input="Hi", stream=True)
    with pytest.raises(openai.APIError) as caught:
        received.extend(e.delta for e in stream if e.type == "response.output_text.delta")
    assert "".join(received) == "Hel"
    assert caught.value.body == {
        "message": "the backend failed or could not be reached",
        "type": "server_error",
        "param": None,
        "code": None,
    }


def _raw_events(base_url: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``(event name, data)`` of each SSE event the gateway sends."""
    reply = httpx.post(base_url + "/v1/responses", json={**body, "stream": True})
    assert reply.headers["content-type"].startswith("text/event-stream")
    assert reply.text.endswith("\n\n")
    events = []
    for block in reply.text.split("\n\n")[:-1]:
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_every_streamed_event_validates_against_the_sdk_types(base_url: str) -> None:
    route([TWO_CALLS])
    events = _raw_events(base_url, {"model": "scripted", "input": "Hi", "tools": [WEATHER]})
    for name, data in events:
        assert name == data["type"]
        stream_event().validate_python(data)  # every required field present, of its type
    final = openai.types.responses.Response.model_validate(events[-1][1]["response"])
    kinds = ["reasoning", "message", "function_call", "function_call"]
    assert [i.type for i in final.output] == kinds
    arguments: dict[int, str] = {}
    for name, data in events:
        if name == "response.function_call_arguments.delta":
            index = data["output_index"]
            arguments[index] = arguments.get(index, "") + data["delta"]
    assert arguments == {2: '{"city": "Oslo"}', 3: '{"city": "Paris"}'}


def test_a_failed_stream_ends_with_an_error_event_and_response_failed(base_url: str) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "Hel"}}]}
    GATEWAY.routes["cut"] = _openai_backend(
        lambda request: httpx.Response(
            200,
            content=b"data: " + json.dumps(chunk).encode() + b"\n\n",
            headers={"content-type": "text/event-stream"},
        )
    )
    events = _raw_events(base_url, {"model": "cut", "input": "Hi"})
    for _, data in events:
        stream_event().validate_python(data)
    (_, error), (_, failed) = events[-2:]
    assert error["type"] == "error"
    assert (error["code"], error["error"]["type"]) == ("server_error", "server_error")
    assert failed["type"] == "response.failed"
    assert failed["response"]["status"] == "failed"
    assert failed["response"]["error"]["code"] == "server_error"
    assert failed["response"]["output"][0]["type"] == "message"
    assert not any(name == "response.completed" for name, _ in events)


def test_with_keys_the_sdk_needs_one_of_them() -> None:
    keyed = Gateway({"scripted": Lang.scripted(["Hello"])}, api_keys=["gw-1"])
    with served(keyed) as url:
        sdk = {
            key: openai.OpenAI(base_url=url + "/v1", api_key=key, max_retries=0)
            for key in ("gw-1", "gw-2")
        }
        with sdk["gw-1"] as right, sdk["gw-2"] as wrong:
            with pytest.raises(openai.AuthenticationError) as caught:
                wrong.responses.create(model="scripted", input="Hi")
            answer = right.responses.create(model="scripted", input="Hi")
    assert caught.value.type == "authentication_error"
    assert answer.output_text == "Hello"
