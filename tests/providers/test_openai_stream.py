"""Decoding OpenAI Chat Completions streams: byte-exact SSE fixtures through framing + decoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._assembler import Assembler
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
from aiwrapper._wire._framing import SSEDecoder
from aiwrapper.providers.openai import PRESETS, OpenAIProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai"


def provider(preset: str | None = None) -> OpenAIProvider:
    if preset is None:
        return OpenAIProvider(api_key="sk-test")
    base_url, _, profile = PRESETS[preset]
    return OpenAIProvider(api_key="k", base_url=base_url, profile=profile)


def decode(
    name: str, prov: OpenAIProvider | None = None, chunk_size: int | None = None
) -> list[Event]:
    """Feed a fixture's bytes (in pieces of ``chunk_size``) through framing and the decoder."""
    data = (FIXTURES / name).read_bytes()
    decoder = (prov or provider()).decode_stream()
    framer = SSEDecoder()
    step = chunk_size or len(data)
    events: list[Event] = []
    for start in range(0, len(data), step):
        for event, payload in framer.feed(data[start : start + step]):
            events += decoder.feed(event, payload)
    for event, payload in framer.flush():
        events += decoder.feed(event, payload)
    events += decoder.close()
    # The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
    return [e for e in events if not isinstance(e, ModelEvent)]


def test_plain_text_with_usage_chunk() -> None:
    usage = json.loads((FIXTURES / "text.sse").read_bytes().split(b"data: ")[-2])["usage"]
    assert decode("text.sse") == [
        TextDelta("Hello"),
        TextDelta(", wor"),
        TextDelta("ld!"),
        UsageEvent(
            input_tokens=1200,
            output_tokens=9,
            cached_input_tokens=1024,
            cache_write_tokens=None,
            reasoning_tokens=0,
            raw=usage,
        ),
        FinishEvent("stop", "stop"),
    ]


def test_one_call_streamed_in_fragments() -> None:
    assert decode("tool_call_fragments.sse") == [
        ToolCallStart(0, "call_a1", "get_weather"),
        ToolCallDelta(0, '{"ci'),
        ToolCallDelta(0, 'ty":"Os'),
        ToolCallDelta(0, 'lo"}'),
        ToolCallEnd(0),
        UsageEvent(
            input_tokens=81,
            output_tokens=20,
            raw={"prompt_tokens": 81, "completion_tokens": 20, "total_tokens": 101},
        ),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_parallel_calls_with_interleaved_fragments_keep_their_index() -> None:
    assert decode("parallel_interleaved.sse") == [
        TextDelta("Checking both."),
        ToolCallStart(0, "call_a1", "get_weather"),
        ToolCallStart(1, "call_b2", "get_time"),
        ToolCallDelta(0, '{"city":'),
        ToolCallDelta(1, '{"tz":'),
        ToolCallDelta(0, '"Rome"}'),
        ToolCallDelta(1, '"CET"}'),
        ToolCallEnd(0),
        ToolCallEnd(1),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_arguments_with_the_name_and_several_fragments_in_one_chunk() -> None:
    assert decode("args_same_chunk.sse") == [
        ToolCallStart(0, "call_x", "add"),
        ToolCallDelta(0, '{"a":'),
        ToolCallDelta(0, "1,"),
        ToolCallDelta(0, '"b":2}'),
        ToolCallStart(1, "call_y", "add"),
        ToolCallDelta(1, '{"a":3,"b":4}'),
        ToolCallEnd(0),
        ToolCallEnd(1),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_empty_arguments_end_as_an_empty_object() -> None:
    assert decode("empty_arguments.sse") == [
        ToolCallStart(0, "call_now", "get_time"),
        ToolCallEnd(0, {}),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_keepalive_comments_and_crlf_line_ends() -> None:
    assert decode("keepalive_crlf.sse", provider("openrouter")) == [
        TextDelta("Hi"),
        TextDelta(" there"),
        UsageEvent(
            input_tokens=10,
            output_tokens=2,
            raw={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        ),
        FinishEvent("stop", "stop"),
    ]


@pytest.mark.parametrize(
    "name",
    [
        "text.sse",
        "tool_call_fragments.sse",
        "parallel_interleaved.sse",
        "args_same_chunk.sse",
        "keepalive_crlf.sse",
        "deepseek_reasoning.sse",
        "openrouter_reasoning_details.sse",
        "length_partial_call.sse",
        "azure_prompt_filter_crlf.sse",
    ],
)
@pytest.mark.parametrize("chunk_size", [1, 7, 64])
def test_events_do_not_depend_on_how_the_body_is_split(name: str, chunk_size: int) -> None:
    assert decode(name, chunk_size=chunk_size) == decode(name)


def test_error_object_inside_a_200_stream_raises_the_mapped_class() -> None:
    with pytest.raises(errors.RateLimitError) as info:
        decode("error_in_stream.sse")
    assert info.value.message.startswith("Rate limit reached for gpt-4o-mini")
    assert info.value.provider == "openai"
    assert info.value.body["code"] == "rate_limit_exceeded"


def test_stream_without_done_is_a_stream_error() -> None:
    with pytest.raises(errors.StreamError, match=r"openai: stream ended before \[DONE\]"):
        decode("missing_done.sse")


def test_deepseek_reasoning_content_becomes_thinking() -> None:
    events = decode("deepseek_reasoning.sse", provider("deepseek"))
    assert events[:-2] == [
        ThinkingDelta("The user wants"),
        ThinkingDelta(" the weather."),
        ToolCallStart(0, "call_00_kT2x", "get_weather"),
        ToolCallDelta(0, '{"city":"Oslo"}'),
        ToolCallEnd(0),
    ]
    usage = events[-2]
    assert isinstance(usage, UsageEvent)
    assert (usage.input_tokens, usage.output_tokens) == (300, 40)
    assert (usage.cached_input_tokens, usage.reasoning_tokens) == (256, 25)
    assert events[-1] == FinishEvent("tool_calls", "tool_calls")


def test_named_tool_choice_finish_stop_with_calls_is_tool_calls() -> None:
    assert decode("named_choice_stop.sse") == [
        ToolCallStart(0, "call_n1", "get_weather"),
        ToolCallDelta(0, '{"city":"Lima"}'),
        ToolCallEnd(0),
        FinishEvent("tool_calls", "stop"),
    ]


def test_whole_call_in_one_delta_and_resent_id_and_name_merge_idempotently() -> None:
    assert decode("whole_call_resend.sse", provider("llamacpp")) == [
        ToolCallStart(0, "call_w1", "get_weather"),
        ToolCallDelta(0, '{"city":'),
        ToolCallDelta(0, '"Paris"}'),
        ToolCallEnd(0),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_openrouter_reasoning_details_are_merged_into_one_opaque_part() -> None:
    events = decode("openrouter_reasoning_details.sse", provider("openrouter"))
    detail = {
        "type": "reasoning.text",
        "text": "Need weather.",
        "format": "anthropic-claude-v1",
        "index": 0,
        "signature": "c2lnLTE=",
    }
    assert events == [
        ThinkingDelta("Need "),
        ThinkingDelta("weather."),
        ToolCallStart(0, "toolu_01", "get_weather"),
        ToolCallDelta(0, '{"city":"Oslo"}'),
        ToolCallEnd(0),
        OpaquePartEvent(ProviderState("openrouter", {"reasoning_details": [detail]}), "thinking"),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_gemini_compat_extra_content_rides_on_its_call_without_index() -> None:
    base_url = "https://generativelanguage.googleapis.com/v1beta/openai/"
    prov = OpenAIProvider(api_key="k", base_url=base_url)
    call_id = "function-call-8f2e6a1c-3b4d-4e5f-a6b7-c8d9e0f1a2b3"
    signature = {"google": {"thought_signature": "Q2lRQmpz"}}
    assert decode("gemini_extra_content.sse", prov)[:4] == [
        ToolCallStart(0, call_id, "get_weather"),
        PartStateEvent(ProviderState("openai", {"extra_content": signature}), index=0),
        ToolCallDelta(0, '{"city":"Oslo"}'),
        ToolCallEnd(0),
    ]


def feed_all(prov: OpenAIProvider, *payloads: str) -> list[Event]:
    decoder = prov.decode_stream()
    events: list[Event] = []
    for payload in payloads:
        events += decoder.feed(None, payload)
    return events + decoder.close()


def test_refusal_is_text_and_finishes_as_content_filter() -> None:
    events = feed_all(
        provider(),
        '{"choices":[{"index":0,"delta":{"role":"assistant","refusal":"I can\'t help."}}]}',
        '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        "[DONE]",
    )
    assert events == [TextDelta("I can't help."), FinishEvent("content_filter", "stop")]


def test_reasoning_field_of_newer_servers_is_thinking_and_duplicates_are_not_doubled() -> None:
    events = feed_all(
        provider("vllm"),
        '{"choices":[{"index":0,"delta":{"reasoning":"Hmm."}}]}',
        '{"choices":[{"index":0,"delta":{"reasoning":"Ok.","reasoning_content":"Ok."}}]}',
        '{"choices":[{"index":0,"delta":{"content":"Yes."},"finish_reason":"length"}]}',
        "[DONE]",
    )
    assert events == [
        ThinkingDelta("Hmm."),
        ThinkingDelta("Ok."),
        TextDelta("Yes."),
        FinishEvent("length", "length"),
    ]


def test_mistral_content_chunks_split_into_thinking_and_text() -> None:
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "content": [
                        {"type": "thinking", "thinking": [{"type": "text", "text": "Plan."}]},
                        {"type": "text", "text": "Done."},
                    ]
                },
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
    events = feed_all(provider("mistral"), json.dumps(chunk), "[DONE]")
    assert events[:2] == [ThinkingDelta("Plan."), TextDelta("Done.")]
    assert events[3] == FinishEvent("stop", "stop")


def test_id_before_name_waits_for_the_name() -> None:
    events = feed_all(
        provider(),
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c9","type":"function"}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{}"}}]}}]}',
        "[DONE]",
    )
    assert events == [
        ToolCallStart(0, "c9", "f"),
        ToolCallDelta(0, "{}"),
        ToolCallEnd(0),
        FinishEvent("tool_calls", None),
    ]


def test_openrouter_error_with_int_code_mid_stream_is_a_server_error() -> None:
    chunk = {
        "id": "gen-1",
        "object": "chat.completion.chunk",
        "error": {"code": 502, "message": "Upstream error", "metadata": {"provider_name": "X"}},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
    }
    with pytest.raises(errors.ServerError, match=r"Upstream error \(upstream provider: X\)"):
        feed_all(provider("openrouter"), json.dumps(chunk))


def test_overloaded_error_mid_stream_is_overloaded() -> None:
    payload = '{"error":{"message":"Overloaded","type":"overloaded_error","code":null}}'
    with pytest.raises(errors.OverloadedError):
        feed_all(provider(), payload)


def test_vllm_error_object_mid_stream_is_a_stream_error() -> None:
    payload = '{"object":"error","message":"max_tokens too large","type":"BadRequestError"}'
    with pytest.raises(errors.StreamError, match="vllm: error in stream: max_tokens too large"):
        feed_all(provider("vllm"), payload)


@pytest.mark.parametrize("payload", ["{not json", '{"choices":"x"}', "[1,2]"])
def test_undecodable_chunks_are_stream_errors_never_raw_exceptions(payload: str) -> None:
    with pytest.raises(errors.StreamError) as info:
        provider().decode_stream().feed(None, payload)
    assert info.value.__cause__ is not None


def test_data_after_done_is_ignored() -> None:
    decoder = provider().decode_stream()
    assert decoder.feed(None, "[DONE]") == [FinishEvent("stop", None)]
    assert decoder.feed(None, '{"choices":[{"delta":{"content":"late"}}]}') == []
    assert decoder.feed(None, "[DONE]") == []
    assert decoder.close() == []


def test_a_repeated_finish_chunk_ends_each_call_once() -> None:
    start = '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f"}}]}}]}'
    finish = '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}'
    assert feed_all(provider(), start, finish, finish, "[DONE]") == [
        ToolCallStart(0, "c1", "f"),
        ToolCallEnd(0, {}),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_a_call_cut_off_by_the_length_limit_is_ended_with_its_partial_arguments() -> None:
    events = decode("length_partial_call.sse")
    assert events == [
        ToolCallStart(0, "call_t1", "write_note"),
        ToolCallDelta(0, '{"text":"'),
        ToolCallDelta(0, "Dear Ål"),
        ToolCallEnd(0),
        UsageEvent(
            input_tokens=50,
            output_tokens=16,
            raw={"prompt_tokens": 50, "completion_tokens": 16, "total_tokens": 66},
        ),
        FinishEvent("length", "length"),
    ]
    # The truncated text is kept as is, so validation reports it instead of running the
    # function with made-up arguments; the wire's "length" stays on the result.
    assembler = Assembler("openai")
    assembler.add_all(events)
    (call,) = assembler.finish().tool_calls
    assert (call.raw_arguments, call.arguments) == ('{"text":"Dear Ål', {})
    assert (assembler.finish_reason, assembler.raw_finish_reason) == ("tool_calls", "length")
    assert assembler.truncated


def test_azure_prompt_filter_chunk_without_choices_is_skipped() -> None:
    assert decode("azure_prompt_filter_crlf.sse") == [
        TextDelta("Here is"),
        UsageEvent(
            input_tokens=20,
            output_tokens=3,
            raw={"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23},
        ),
        FinishEvent("content_filter", "content_filter"),
    ]


def test_a_null_error_key_is_not_an_error() -> None:
    events = feed_all(
        provider("openrouter"),
        '{"choices":[{"index":0,"delta":{"content":"Hi"}}],"error":null}',
        '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"error":null}',
        "[DONE]",
    )
    assert events == [TextDelta("Hi"), FinishEvent("stop", "stop")]


def test_usage_on_every_chunk_is_reported_each_time_and_the_last_counts() -> None:
    events = feed_all(
        provider("vllm"),
        '{"choices":[{"index":0,"delta":{"content":"A"}}],"usage":'
        '{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}',
        '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":'
        '{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}',
        "[DONE]",
    )
    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "UsageEvent",
        "UsageEvent",
        "FinishEvent",
    ]
    last = events[2]
    assert isinstance(last, UsageEvent)
    assert (last.input_tokens, last.output_tokens) == (5, 2)


def test_object_arguments_before_the_name_are_kept_as_json_text() -> None:
    events = feed_all(
        provider("lmstudio"),
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":'
        '{"arguments":{"city":"Oslo"}}}]}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"get_weather"}}]},'
        '"finish_reason":"tool_calls"}]}',
        "[DONE]",
    )
    assert events == [
        ToolCallStart(0, "c1", "get_weather"),
        ToolCallDelta(0, '{"city":"Oslo"}'),
        ToolCallEnd(0),
        FinishEvent("tool_calls", "tool_calls"),
    ]


def test_reasoning_details_after_the_finish_chunk_are_not_lost() -> None:
    detail = {"type": "reasoning.encrypted", "data": "ZW5j", "index": 0}
    events = feed_all(
        provider("openrouter"),
        '{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}',
        json.dumps({"choices": [{"index": 0, "delta": {"reasoning_details": [detail]}}]}),
        "[DONE]",
    )
    assert events == [
        TextDelta("Hi"),
        OpaquePartEvent(ProviderState("openrouter", {"reasoning_details": [detail]}), "thinking"),
        FinishEvent("stop", "stop"),
    ]


@pytest.mark.parametrize(
    ("error", "cls"),
    [
        ({"code": 401, "message": "No auth credentials found"}, errors.AuthenticationError),
        ({"code": 402, "message": "Insufficient credits"}, errors.PermissionDeniedError),
        ({"code": 429, "message": "Rate limited upstream"}, errors.RateLimitError),
        ({"code": 503, "message": "No instances available"}, errors.OverloadedError),
        ({"message": "Internal error", "type": "server_error", "code": None}, errors.ServerError),
        (
            {"message": "You exceeded your quota", "type": "insufficient_quota", "code": None},
            errors.RateLimitError,
        ),
    ],
)
def test_errors_inside_a_stream_keep_their_class(
    error: dict[str, object], cls: type[errors.ProviderError]
) -> None:
    with pytest.raises(cls) as info:
        feed_all(provider("openrouter"), json.dumps({"error": error}))
    assert type(info.value) is cls
    assert info.value.message == error["message"]
    assert info.value.provider == "openrouter"


def test_vllm_error_with_a_status_code_mid_stream_is_a_bad_request() -> None:
    payload = (
        '{"object":"error","message":"context too long","type":"BadRequestError",'
        '"param":null,"code":400}'
    )
    with pytest.raises(errors.BadRequestError, match="context too long"):
        feed_all(provider("vllm"), payload)
