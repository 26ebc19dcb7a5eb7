"""Whole (non-streamed) Chat Completions bodies decode into the same events as streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import JSONValue, LangMessage
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.openai import PRESETS, OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai"


def decode(name: str, prov: OpenAIProvider) -> list[Event]:
    decoder = prov.decode_stream()
    events: list[Event] = []
    for event, payload in SSEDecoder().feed((FIXTURES / name).read_bytes()):
        events += decoder.feed(event, payload)
    # The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def completion(
    message: dict[str, Any], finish: str, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-x1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
    }


def test_parallel_tool_calls_body() -> None:
    usage: dict[str, JSONValue] = {
        "prompt_tokens": 81,
        "completion_tokens": 40,
        "total_tokens": 121,
    }
    body = completion(
        {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [
                {
                    "id": "call_a1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo","unit":null}'},
                },
                {
                    "id": "call_b2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                },
            ],
        },
        "tool_calls",
        usage,
    )
    assert OpenAIProvider(api_key="k").decode_response(body) == [
        ModelEvent("gpt-4o-mini"),
        ToolCallStart(0, "call_a1", "get_weather"),
        ToolCallDelta(0, '{"city":"Oslo","unit":null}'),
        ToolCallStart(1, "call_b2", "get_weather"),
        ToolCallEnd(0),
        ToolCallEnd(1, {}),
        UsageEvent(input_tokens=81, output_tokens=40, raw=usage),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_text_with_reasoning_and_named_choice_stop() -> None:
    base_url, _, profile = PRESETS["deepseek"]
    prov = OpenAIProvider(api_key="k", base_url=base_url, profile=profile)
    body = completion(
        {"role": "assistant", "content": "Sunny.", "reasoning_content": "Look it up."}, "stop"
    )
    assert prov.decode_response(body) == [
        ModelEvent("gpt-4o-mini"),
        ThinkingDelta("Look it up."),
        TextDelta("Sunny."),
        FinishEvent("stop", "stop"),
    ]
    named = completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
        "stop",
    )
    assert prov.decode_response(named)[-1] == FinishEvent("tool_calls", "stop")


def test_error_body_with_status_200_raises() -> None:
    with pytest.raises(errors.RateLimitError):
        OpenAIProvider(api_key="k").decode_response(
            {"error": {"message": "slow down", "code": 429}}
        )


@pytest.mark.parametrize("body", [{"choices": []}, {"object": "list"}, "text", None])
def test_unexpected_bodies_are_stream_errors(body: Any) -> None:
    with pytest.raises(errors.StreamError):
        OpenAIProvider(api_key="k").decode_response(body)


def test_streamed_turn_assembles_and_replays_verbatim_to_the_same_server() -> None:
    base_url, _, profile = PRESETS["openrouter"]
    prov = OpenAIProvider(api_key="k", base_url=base_url, profile=profile)
    assembler = Assembler(prov.name)
    for event in decode("openrouter_reasoning_details.sse", prov):
        assembler.add(event)
    turn = assembler.finish()
    body = prov.encode(
        ProviderRequest("m", [LangMessage.text("user", "x"), turn], [], LangOptions(), False)
    ).body
    assert body["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "toolu_01",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
            }
        ],
        "reasoning_details": [
            {
                "type": "reasoning.text",
                "text": "Need weather.",
                "format": "anthropic-claude-v1",
                "index": 0,
                "signature": "c2lnLTE=",
            }
        ],
    }


def test_refusal_body_is_text_and_content_filter() -> None:
    body = completion(
        {"role": "assistant", "content": None, "refusal": "I can't help with that."}, "stop"
    )
    assert OpenAIProvider(api_key="k").decode_response(body) == [
        ModelEvent("gpt-4o-mini"),
        TextDelta("I can't help with that."),
        FinishEvent("content_filter", "stop"),
    ]


def test_body_with_a_null_error_key_decodes() -> None:
    body = {**completion({"role": "assistant", "content": "Hi"}, "stop"), "error": None}
    assert OpenAIProvider(api_key="k").decode_response(body) == [
        ModelEvent("gpt-4o-mini"),
        TextDelta("Hi"),
        FinishEvent("stop", "stop"),
    ]


def test_text_with_calls_and_length_cut_in_one_body() -> None:
    body = completion(
        {
            "role": "assistant",
            "content": "Writing it.",
            "tool_calls": [
                {
                    "id": "call_t1",
                    "type": "function",
                    "function": {"name": "write_note", "arguments": '{"text":"Dea'},
                }
            ],
        },
        "length",
    )
    assert OpenAIProvider(api_key="k").decode_response(body) == [
        ModelEvent("gpt-4o-mini"),
        TextDelta("Writing it."),
        ToolCallStart(0, "call_t1", "write_note"),
        ToolCallDelta(0, '{"text":"Dea'),
        ToolCallEnd(0),
        FinishEvent("length", "length"),  # kept with the call: its arguments may be cut off
    ]
