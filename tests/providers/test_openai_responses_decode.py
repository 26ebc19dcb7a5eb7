"""Decoding Responses API answers: byte-exact SSE fixtures through framing and the decoder,
split at every size, and the same answers as whole bodies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._assembler import Assembler
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    OpaquePartEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import (
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.openai_responses import NAME, ResponsesStreamDecoder

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"
SIZES = [None, 1, 2, 7, 64]


def decode(name: str, chunk_size: int | None = None) -> list[Event]:
    """Feed a fixture's bytes (in pieces of ``chunk_size``) through framing and the decoder."""
    data = (FIXTURES / name).read_bytes()
    decoder, framer = ResponsesStreamDecoder(NAME), SSEDecoder()
    step = chunk_size or len(data)
    events: list[Event] = []
    for start in range(0, len(data), step):
        for event, payload in framer.feed(data[start : start + step]):
            events += decoder.feed(event, payload)
    for event, payload in framer.flush():
        events += decoder.feed(event, payload)
    return events + decoder.close()


def final_response(name: str) -> dict[str, Any]:
    """The terminal event's ``response``: what the same request answers unstreamed."""
    last = (FIXTURES / name).read_bytes().rstrip().split(b"data: ")[-1]
    if last == b"[DONE]":
        last = (FIXTURES / name).read_bytes().rstrip().split(b"data: ")[-2]
    response: dict[str, Any] = json.loads(last)["response"]
    return response


def assemble(events: list[Event]) -> Assembler:
    assembler = Assembler(NAME)
    assembler.add_all(events)
    assembler.finish()
    return assembler


def test_reasoning_in_two_parts_preamble_and_two_parallel_calls() -> None:
    final = final_response("reasoning_calls.sse")
    expected: list[Event] = [
        ModelEvent("o3-2025-04-16"),
        ThinkingDelta("**Planning weather lookups**\n\n"),
        ThinkingDelta("The user wants Oslo and Rome; "),
        ThinkingDelta("two independent calls."),
        ThinkingDelta("\n\n**Calling in parallel**\n\n"),  # a blank line between two parts
        ThinkingDelta("Both cities at once."),
        TextDelta("Checking"),
        TextDelta(" both"),
        TextDelta(" cities."),
        ToolCallStart(0, "call_Oslo7Qm2", "get_weather"),
        ToolCallDelta(0, '{"city":'),
        ToolCallDelta(0, '"Oslo"}'),
        ToolCallEnd(0),
        ToolCallStart(1, "call_Rome9Xv4", "get_weather"),
        ToolCallDelta(1, '{"ci'),
        ToolCallDelta(1, 'ty":"Rome"}'),
        ToolCallEnd(1),
        UsageEvent(
            input_tokens=291,
            output_tokens=180,
            cached_input_tokens=128,
            reasoning_tokens=128,
            raw=final["usage"],
        ),
        OpaquePartEvent(
            ProviderState(NAME, {"model": "o3-2025-04-16", "items": final["output"]}),
            kind="thinking",
        ),
        FinishEvent("tool_calls", "completed"),
    ]
    for size in SIZES:
        assert decode("reasoning_calls.sse", size) == expected


def test_the_kept_items_come_from_output_item_done_with_encrypted_content() -> None:
    state = next(e for e in decode("reasoning_calls.sse") if isinstance(e, OpaquePartEvent))
    items = state.state.data["items"]
    assert [item["id"] for item in items] == [
        "rs_68f3a1c3aa",
        "msg_68f3a1c4bb",
        "fc_68f3a1c5c1",
        "fc_68f3a1c5d2",
    ]
    assert items[0]["encrypted_content"].startswith("gAAAAAB")  # never on the .added item
    assert items[1]["status"] == "completed"


def test_the_whole_body_assembles_into_the_streamed_message() -> None:
    streamed = assemble(decode("reasoning_calls.sse"))
    body = json.loads((FIXTURES / "reasoning_calls.json").read_text())
    whole = assemble(ResponsesStreamDecoder(NAME).whole(body))
    for turn in (streamed, whole):
        parts = turn.message.parts
        assert [type(p) for p in parts] == [
            ThinkingPart,
            TextPart,
            ToolCallPart,
            ToolCallPart,
            OpaquePart,
        ]
        assert turn.thinking == (
            "**Planning weather lookups**\n\nThe user wants Oslo and Rome; two independent "
            "calls.\n\n**Calling in parallel**\n\nBoth cities at once."
        )
        assert turn.answer == "Checking both cities."
        assert [(c.id, c.arguments) for c in turn.tool_calls] == [
            ("call_Oslo7Qm2", {"city": "Oslo"}),
            ("call_Rome9Xv4", {"city": "Rome"}),
        ]
        assert turn.finish_reason == "tool_calls"
        assert turn.model == "o3-2025-04-16"
        assert (turn.usage.input_tokens, turn.usage.cached_input_tokens) == (291, 128)
    assert whole.message.parts[-1] == streamed.message.parts[-1]


def test_keepalive_events_mid_stream_are_ignored() -> None:
    events = decode("keepalive.sse")
    assert sum(b'"type":"keepalive"' in line for line in _lines("keepalive.sse")) == 4
    texts = [e for e in events if isinstance(e, TextDelta)]
    assert texts == [TextDelta("It is "), TextDelta("42.")]
    assert events[-1] == FinishEvent("stop", "completed")
    for size in SIZES:
        assert decode("keepalive.sse", size) == events


def test_a_reasoning_item_without_summary_is_still_kept() -> None:
    turn = assemble(decode("keepalive.sse"))
    assert turn.thinking == ""
    opaque = turn.message.parts[-1]
    assert isinstance(opaque, OpaquePart)
    assert [i["type"] for i in opaque.state.data["items"]] == ["reasoning", "message"]
    assert turn.answer == "It is 42."


def test_a_flat_error_event_raises_a_stream_error_with_its_message() -> None:
    with pytest.raises(errors.StreamError, match="Something went wrong"):
        decode("error_flat.sse")


def test_a_nested_error_event_raises_the_mapped_class() -> None:
    for size in SIZES:
        with pytest.raises(errors.RateLimitError, match="Too Many Requests") as caught:
            decode("error_nested.sse", size)
        assert caught.value.provider == NAME


def test_response_failed_raises_the_error_mapped_from_its_code() -> None:
    with pytest.raises(errors.ServerError, match="failed to generate"):
        decode("failed.sse")
    with pytest.raises(errors.ServerError, match="failed to generate"):
        ResponsesStreamDecoder(NAME).whole(final_response("failed.sse"))


def test_incomplete_with_a_half_built_call_is_length_and_truncated() -> None:
    for size in SIZES:
        events = decode("incomplete_call.sse", size)
        assert events[-1] == FinishEvent("length", "max_output_tokens")
        turn = assemble(events)
        assert turn.truncated
        assert turn.finish_reason == "tool_calls"
        (call,) = turn.tool_calls
        assert call.raw_arguments == '{"text":"Dear Ålice, the meet'
        assert call.arguments == {}  # cut off: validation will refuse it, the tool is not run
    whole = assemble(ResponsesStreamDecoder(NAME).whole(final_response("incomplete_call.sse")))
    assert whole.truncated
    assert whole.tool_calls[0].raw_arguments == '{"text":"Dear Ålice, the meet'


def test_only_finished_items_are_kept_from_an_incomplete_turn() -> None:
    turn = assemble(decode("incomplete_call.sse"))
    opaque = turn.message.parts[-1]
    assert isinstance(opaque, OpaquePart)
    assert [i["id"] for i in opaque.state.data["items"]] == ["rs_inc0"]


def test_compatible_server_without_sequence_numbers_and_late_item_done() -> None:
    final = final_response("compatible_late_done.sse")
    expected: list[Event] = [
        ThinkingDelta("User asks weather"),
        ThinkingDelta(" in Oslo."),
        ToolCallStart(0, "call_llama1", "get_weather"),
        ToolCallDelta(0, '{"city"'),
        ToolCallDelta(0, ':"Oslo"}'),
        ToolCallEnd(0),  # at the late output_item.done; "delta": null added nothing
        ModelEvent("openai/gpt-oss-20b"),  # only the terminal response names the model
        UsageEvent(input_tokens=84, output_tokens=23, cached_input_tokens=0, raw=final["usage"]),
        OpaquePartEvent(
            ProviderState(NAME, {"model": "openai/gpt-oss-20b", "items": final["output"]}),
            kind="thinking",
        ),
        FinishEvent("tool_calls", "completed"),
    ]
    assert b"sequence_number" not in (FIXTURES / "compatible_late_done.sse").read_bytes()
    assert _lines("compatible_late_done.sse")[-1] == b"data: [DONE]"
    for size in SIZES:
        assert decode("compatible_late_done.sse", size) == expected
    whole = assemble(ResponsesStreamDecoder(NAME).whole(final))
    streamed = assemble(expected)
    assert whole.thinking == streamed.thinking == "User asks weather in Oslo."
    assert [c.arguments for c in whole.tool_calls] == [{"city": "Oslo"}]


def test_a_stream_that_ends_without_a_terminal_event_is_a_stream_error() -> None:
    data = (FIXTURES / "reasoning_calls.sse").read_bytes()
    cut = data[: data.index(b"event: response.completed")]
    decoder, framer = ResponsesStreamDecoder(NAME), SSEDecoder()
    for event, payload in framer.feed(cut):
        decoder.feed(event, payload)
    decoder.feed(None, "[DONE]")  # a stray [DONE] is no terminal event
    with pytest.raises(errors.StreamError, match=r"ended before response\.completed"):
        decoder.close()


def test_unknown_events_and_events_after_the_end_are_ignored() -> None:
    decoder = ResponsesStreamDecoder(NAME)
    assert decoder.feed("x", '{"type":"response.web_search_call.searching","item_id":"ws"}') == []
    assert decoder.feed(None, '{"type":"response.queued","response":{}}') == []
    done = {"type": "response.completed", "response": {"status": "completed", "output": []}}
    assert decoder.feed(None, json.dumps(done)) == [FinishEvent("stop", "completed")]
    assert decoder.feed(None, '{"type":"response.output_text.delta","delta":"late"}') == []
    assert decoder.close() == []


def test_a_refusal_is_shown_as_text_and_ends_as_content_filter() -> None:
    decoder = ResponsesStreamDecoder(NAME)
    refusal = {"type": "response.refusal.delta", "item_id": "msg_1", "delta": "I can't help."}
    done = {"type": "response.completed", "response": {"status": "completed"}}
    events = decoder.feed(None, json.dumps(refusal)) + decoder.feed(None, json.dumps(done))
    assert events == [TextDelta("I can't help."), FinishEvent("content_filter", "completed")]


def test_an_undecodable_event_is_a_stream_error() -> None:
    with pytest.raises(errors.StreamError, match="undecodable"):
        ResponsesStreamDecoder(NAME).feed(None, '{"type": "response.output_item.added"}')


def _lines(name: str) -> list[bytes]:
    return [line for line in (FIXTURES / name).read_bytes().splitlines() if line]
