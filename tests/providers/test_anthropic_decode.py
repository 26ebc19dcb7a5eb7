"""Anthropic responses: byte-exact SSE and JSON fixtures decoded into exact event lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import ProviderState
from aiwrapper._errors import OverloadedError, RateLimitError, StreamError
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.anthropic import AnthropicProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "anthropic"
PROVIDER = AnthropicProvider(api_key="k")


def stream(name: str, *, chunk: int = 0) -> list[Event]:
    """Feed a fixture through framing and a fresh decoder, in ``chunk``-byte pieces."""
    data = (FIXTURES / name).read_bytes()
    pieces = [data[i : i + chunk] for i in range(0, len(data), chunk)] if chunk else [data]
    framing, decoder = SSEDecoder(), PROVIDER.decode_stream()
    events: list[Event] = []
    for piece in pieces:
        for event_name, text in framing.feed(piece):
            events += decoder.feed(event_name, text)
    for event_name, text in framing.flush():
        events += decoder.feed(event_name, text)
    return without_model(events + decoder.close())


def whole(name: str) -> list[Event]:
    return without_model(PROVIDER.decode_response(json.loads((FIXTURES / name).read_bytes())))


# The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
def without_model(events: list[Event]) -> list[Event]:
    return [e for e in events if not isinstance(e, ModelEvent)]


def state(**data: Any) -> ProviderState:
    return ProviderState("anthropic", data)


def usage(raw: dict[str, Any], **counts: int | None) -> UsageEvent:
    return UsageEvent(raw=raw, **counts)


TEXT_START_USAGE = {
    "input_tokens": 25,
    "cache_creation_input_tokens": 100,
    "cache_read_input_tokens": 1200,
    "output_tokens": 1,
    "service_tier": "standard",
}
TEXT_CACHE = {"input_tokens": 1325, "cached_input_tokens": 1200, "cache_write_tokens": 100}


def test_text_stream() -> None:
    assert stream("text.sse") == [
        usage(TEXT_START_USAGE, output_tokens=1, **TEXT_CACHE),
        TextDelta("Hello", new_part=True),
        TextDelta("! How can I help?"),
        usage({**TEXT_START_USAGE, "output_tokens": 9}, output_tokens=9, **TEXT_CACHE),
        FinishEvent("stop", raw="end_turn"),
    ]


def test_text_whole() -> None:
    assert whole("text.json") == [
        usage({**TEXT_START_USAGE, "output_tokens": 9}, output_tokens=9, **TEXT_CACHE),
        TextDelta("Hello! How can I help?", new_part=True),
        FinishEvent("stop", raw="end_turn"),
    ]


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_any_chunking_gives_the_same_events(chunk: int) -> None:
    assert stream("thinking_tool_use.sse", chunk=chunk) == stream("thinking_tool_use.sse")
    assert stream("text.sse", chunk=chunk) == stream("text.sse")


PARALLEL_USAGE = {
    "input_tokens": 410,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}
PARALLEL_COUNTS = {"input_tokens": 410, "cached_input_tokens": 0, "cache_write_tokens": 0}


def test_parallel_tool_use_stream() -> None:
    assert stream("parallel_tool_use.sse") == [
        usage({**PARALLEL_USAGE, "output_tokens": 2}, output_tokens=2, **PARALLEL_COUNTS),
        TextDelta("I'll check both cities.", new_part=True),
        ToolCallStart(1, "toolu_01A", "get_weather"),
        ToolCallDelta(1, '{"city": "Oslo"}'),
        ToolCallEnd(1),
        ToolCallStart(2, "toolu_01B", "get_weather"),
        ToolCallDelta(2, '{"city": "Ro'),
        ToolCallDelta(2, 'me", "unit": '),
        ToolCallDelta(2, '"celsius"}'),
        ToolCallEnd(2),
        usage({**PARALLEL_USAGE, "output_tokens": 96}, output_tokens=96, **PARALLEL_COUNTS),
        FinishEvent("tool_calls", raw="tool_use"),
    ]


def test_parallel_tool_use_whole() -> None:
    assert whole("parallel_tool_use.json") == [
        usage({**PARALLEL_USAGE, "output_tokens": 96}, output_tokens=96, **PARALLEL_COUNTS),
        TextDelta("I'll check both cities.", new_part=True),
        ToolCallStart(1, "toolu_01A", "get_weather"),
        ToolCallEnd(1, {"city": "Oslo"}),
        ToolCallStart(2, "toolu_01B", "get_weather"),
        ToolCallEnd(2, {"city": "Rome", "unit": "celsius"}),
        FinishEvent("tool_calls", raw="tool_use"),
    ]


SIG = "EqQBCkYIBxgCKkBzaWduYXR1cmUtb25l+/Tk9QxQ7vL2=="
THINK_USAGE = {"input_tokens": 512, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
THINK_COUNTS = {"input_tokens": 512, "cached_input_tokens": 0, "cache_write_tokens": 0}
THINK_FINAL = {"output_tokens": 131, "output_tokens_details": {"thinking_tokens": 88}}


@pytest.mark.parametrize("name", ["thinking_tool_use.sse", "thinking_tool_use_crlf.sse"])
def test_thinking_tool_use_stream(name: str) -> None:
    assert stream(name) == [
        usage({**THINK_USAGE, "output_tokens": 4}, output_tokens=4, **THINK_COUNTS),
        ThinkingDelta("", new_part=True),
        ThinkingDelta("The user wants the weather in Oslo."),
        ThinkingDelta(" I should call get_weather.\n"),
        PartStateEvent(state(signature=SIG)),
        ToolCallStart(1, "toolu_01T", "get_weather"),
        ToolCallDelta(1, '{"city":'),
        ToolCallDelta(1, ' "Oslo"}'),
        ToolCallEnd(1),
        usage(
            {**THINK_USAGE, **THINK_FINAL}, output_tokens=131, reasoning_tokens=88, **THINK_COUNTS
        ),
        FinishEvent("tool_calls", raw="tool_use"),
    ]


def test_thinking_tool_use_whole() -> None:
    assert whole("thinking_tool_use.json") == [
        usage(
            {**THINK_USAGE, **THINK_FINAL}, output_tokens=131, reasoning_tokens=88, **THINK_COUNTS
        ),
        ThinkingDelta("The user wants the weather in Oslo. I should call get_weather.\n", True),
        PartStateEvent(state(signature=SIG)),
        ToolCallStart(1, "toolu_01T", "get_weather"),
        ToolCallEnd(1, {"city": "Oslo"}),
        FinishEvent("tool_calls", raw="tool_use"),
    ]


REDACTED = {
    "type": "redacted_thinking",
    "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
}
SIG2 = "ErUBCkYIBxgCIkB0d28tc2lnbmF0dXJl"


def test_redacted_thinking_stream() -> None:
    assert stream("redacted_thinking.sse") == [
        usage({"input_tokens": 90, "output_tokens": 3}, input_tokens=90, output_tokens=3),
        OpaquePartEvent(state(block=REDACTED), kind="thinking"),
        ThinkingDelta("", new_part=True),  # display "omitted": only a signature arrives
        PartStateEvent(state(signature=SIG2)),
        TextDelta("The answer is 42.", new_part=True),
        usage({"input_tokens": 90, "output_tokens": 57}, input_tokens=90, output_tokens=57),
        FinishEvent("stop", raw="end_turn"),
    ]


def test_redacted_thinking_whole() -> None:
    assert whole("redacted_thinking.json") == [
        usage({"input_tokens": 90, "output_tokens": 57}, input_tokens=90, output_tokens=57),
        OpaquePartEvent(state(block=REDACTED), kind="thinking"),
        ThinkingDelta("", new_part=True),
        PartStateEvent(state(signature=SIG2)),
        TextDelta("The answer is 42.", new_part=True),
        FinishEvent("stop", raw="end_turn"),
    ]


def test_server_tool_blocks_are_kept_whole_and_citations_ride_on_the_text() -> None:
    citation = {
        "type": "web_search_result_location",
        "cited_text": "Oslo: 4 C, cloudy",
        "url": "https://example.com/oslo",
        "title": "Oslo weather",
        "encrypted_index": "EpMBCioI",
    }
    result_block = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01W",
        "content": [
            {
                "type": "web_search_result",
                "url": "https://example.com/oslo",
                "title": "Oslo weather",
                "encrypted_content": "Eo8BCioIAhgB",
                "page_age": None,
            }
        ],
    }
    start = {"input_tokens": 2100, "cache_read_input_tokens": 0, "output_tokens": 5}
    final = {**start, "output_tokens": 44, "server_tool_use": {"web_search_requests": 1}}
    counts = {"input_tokens": 2100, "cached_input_tokens": 0}
    assert stream("server_tool.sse") == [
        usage(start, output_tokens=5, **counts),
        OpaquePartEvent(
            state(
                block={
                    "type": "server_tool_use",
                    "id": "srvtoolu_01W",
                    "name": "web_search",
                    "input": {"query": "weather Oslo"},
                }
            )
        ),
        OpaquePartEvent(state(block=result_block)),
        TextDelta("It is 4 C ", new_part=True),
        TextDelta("and cloudy in Oslo."),
        PartStateEvent(state(citations=[citation])),
        usage(final, output_tokens=44, **counts),
        FinishEvent("stop", raw="end_turn"),
    ]


def test_error_event_inside_the_stream_raises_overloaded() -> None:
    with pytest.raises(OverloadedError) as caught:
        stream("error_overloaded.sse")
    assert caught.value.message == "Overloaded"
    assert caught.value.request_id == "req_011CSHoEeqs5C35K2UUqR7Fy"
    assert caught.value.provider == "anthropic"
    assert caught.value.status_code is None


@pytest.mark.parametrize(
    ("kind", "cls"),
    [("rate_limit_error", RateLimitError), ("overloaded_error", OverloadedError)],
)
def test_error_events_map_to_classes(kind: str, cls: type[Exception]) -> None:
    decoder = PROVIDER.decode_stream()
    with pytest.raises(cls, match="slow down"):
        decoder.feed(
            "error", json.dumps({"type": "error", "error": {"type": kind, "message": "slow down"}})
        )


def test_unknown_error_event_is_a_stream_error() -> None:
    decoder = PROVIDER.decode_stream()
    with pytest.raises(StreamError, match=r"\(weird_error\): boom"):
        decoder.feed("error", '{"type":"error","error":{"type":"weird_error","message":"boom"}}')


def test_missing_message_stop_is_a_stream_error() -> None:
    with pytest.raises(StreamError, match="ended before message_stop"):
        stream("truncated.sse")


@pytest.mark.parametrize(
    ("data", "cause"),
    [
        ("{not json", ValueError),
        ("[1, 2]", None),
        (
            '{"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"x"}}',
            KeyError,
        ),
        ('{"type":"content_block_start","index":0}', KeyError),
        ('{"type":"message_start"}', KeyError),
    ],
)
def test_malformed_events_are_stream_errors(data: str, cause: type[Exception] | None) -> None:
    decoder = PROVIDER.decode_stream()
    with pytest.raises(StreamError) as caught:
        decoder.feed("message", data)
    if cause is None:
        assert caught.value.__cause__ is None
    else:
        assert isinstance(caught.value.__cause__, cause)


def test_unknown_events_and_deltas_are_ignored() -> None:
    decoder = PROVIDER.decode_stream()
    assert decoder.feed("future_event", '{"type":"future_event","x":1}') == []
    assert decoder.feed("ping", "") == []
    decoder.feed(
        None, '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'
    )
    assert (
        decoder.feed(
            None, '{"type":"content_block_delta","index":0,"delta":{"type":"future_delta"}}'
        )
        == []
    )
    assert decoder.feed(None, '{"type":"content_block_stop","index":0}') == []
    assert decoder.feed(None, '{"type":"message_stop"}') == [FinishEvent("stop", raw=None)]
    assert decoder.feed(None, '{"type":"message_start"}') == []  # nothing after the end
    assert decoder.close() == []


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause"),
        ("tool_use", "tool_calls"),
        ("brand_new_reason", "stop"),
    ],
)
def test_stop_reasons(reason: str, expected: str) -> None:
    body = {"content": [], "stop_reason": reason, "usage": {"input_tokens": 1, "output_tokens": 0}}
    assert PROVIDER.decode_response(body)[-1] == FinishEvent(expected, raw=reason)  # type: ignore[arg-type]


def test_calls_are_detected_from_content_not_the_stop_reason() -> None:
    body = {
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    assert PROVIDER.decode_response(body)[-1] == FinishEvent("tool_calls", raw="end_turn")
    # A cut at the limit stays "length" with calls: their arguments may be cut off.
    cut = {**body, "stop_reason": "max_tokens"}
    assert PROVIDER.decode_response(cut)[-1] == FinishEvent("length", raw="max_tokens")


def test_tool_use_extras_like_caller_are_kept_on_the_call() -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "caller": {"type": "x"}}
    body = {"content": [block], "stop_reason": "tool_use", "usage": {}}
    assert PROVIDER.decode_response(body)[1:4] == [
        ToolCallStart(0, "toolu_1", "f"),
        PartStateEvent(state(extra={"caller": {"type": "x"}}), index=0),
        ToolCallEnd(0, {}),
    ]


def test_whole_error_body_and_bad_bodies() -> None:
    with pytest.raises(OverloadedError):
        PROVIDER.decode_response(
            {"type": "error", "error": {"type": "overloaded_error", "message": "o"}}
        )
    with pytest.raises(StreamError):
        PROVIDER.decode_response(["not", "an", "object"])
    with pytest.raises(StreamError):
        PROVIDER.decode_response({"type": "message", "stop_reason": "end_turn"})


SIG3 = "ErcBCkgIBxgCIkDr0m3+c2lnbmF0dXJlLXR3bw/=="
R2_USAGE = {"input_tokens": 690, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 512}
R2_COUNTS = {"input_tokens": 1202, "cached_input_tokens": 512, "cache_write_tokens": 0}


def test_interleaved_thinking_with_unicode_stream_and_whole() -> None:
    assert stream("interleaved_tool_use.sse") == [
        usage({**R2_USAGE, "output_tokens": 3}, output_tokens=3, **R2_COUNTS),
        ThinkingDelta("", new_part=True),
        ThinkingDelta("Oslo is 4 °C. Now Rome — "),
        ThinkingDelta("the user also asked «Roma» 🌤."),
        PartStateEvent(state(signature=SIG3)),
        TextDelta("Oslo: 4 °C. Checking Rome.", new_part=True),
        ToolCallStart(2, "toolu_02R", "get_weather"),
        ToolCallDelta(2, '{"city": "Ro'),  # the empty first fragment is no event
        ToolCallDelta(2, 'ma"}'),
        ToolCallEnd(2),
        usage({**R2_USAGE, "output_tokens": 77}, output_tokens=77, **R2_COUNTS),
        FinishEvent("tool_calls", raw="tool_use"),
    ]
    assert whole("interleaved_tool_use.json") == [
        usage({**R2_USAGE, "output_tokens": 77}, output_tokens=77, **R2_COUNTS),
        ThinkingDelta("Oslo is 4 °C. Now Rome — the user also asked «Roma» 🌤.", new_part=True),
        PartStateEvent(state(signature=SIG3)),
        TextDelta("Oslo: 4 °C. Checking Rome.", new_part=True),
        ToolCallStart(2, "toolu_02R", "get_weather"),
        ToolCallEnd(2, {"city": "Roma"}),
        FinishEvent("tool_calls", raw="tool_use"),
    ]


@pytest.mark.parametrize("chunk", [1, 3, 5])
def test_multibyte_text_split_inside_a_character_decodes_the_same(chunk: int) -> None:
    assert stream("interleaved_tool_use.sse", chunk=chunk) == stream("interleaved_tool_use.sse")


def test_usage_is_cumulative_the_last_message_delta_wins() -> None:
    decoder = PROVIDER.decode_stream()
    start = {"message": {"usage": {"input_tokens": 10, "cache_read_input_tokens": 5}}}
    decoder.feed_object("message_start", start)
    first = decoder.feed_object("message_delta", {"delta": {}, "usage": {"output_tokens": 7}})
    last = decoder.feed_object(
        "message_delta",
        {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9, "input_tokens": 12}},
    )
    assert [(e.input_tokens, e.output_tokens) for e in first + last] == [(15, 7), (17, 9)]  # type: ignore[union-attr]
