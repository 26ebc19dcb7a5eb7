"""Gemini decoding: byte-exact SSE fixtures through framing and decoder, and two-round loops.

The two-round tests fold round one's events with the real assembler, append tool results the
way the loop does, and assert the exact body of round two: signatures back on the part they
came with, responses grouped in one user content, ids echoed only when Gemini gave them, and
the placeholder signature on calls Gemini never made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._events import (
    Event,
    FinishEvent,
    ModelEvent,
    OpaquePartEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import (
    LangMessage,
    LangMessages,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions, merge_options
from aiwrapper.providers.gemini import GeminiProvider

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gemini"
SIG_OSLO = "CtMBAb4+9vSIGoslo=="
PLAN = "**Planning the lookups**\nI will check both cities."
DECLARATION = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}, "unit": {"type": "STRING", "enum": ["c"]}},
        "required": ["city"],
    },
}


@dataclass
class FakeTool:
    """Stands in for ``aiwrapper._tools.Tool``: a name and a fixed declaration."""

    name: str = "get_weather"
    dialects: list[str] = field(default_factory=list)

    def schema_for(self, dialect: str) -> dict[str, Any]:
        self.dialects.append(dialect)
        return dict(DECLARATION)


def gemini(s: str | dict[str, Any]) -> ProviderState:
    data = {"thoughtSignature": s} if isinstance(s, str) else s
    return ProviderState("gemini", data)


def sse_events(raw: bytes) -> list[tuple[str | None, str]]:
    """Frame SSE bytes with the package's decoder."""
    from aiwrapper._wire._framing import SSEDecoder

    framer = SSEDecoder()
    return [*framer.feed(raw), *framer.flush()]


def decode_bytes(raw: bytes) -> list[Event]:
    decoder = GeminiProvider(api_key="k").decode_stream()
    events: list[Event] = []
    for name, data in sse_events(raw):
        events += decoder.feed(name, data)
    # The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def decode(fixture: str) -> list[Event]:
    return decode_bytes((FIXTURES / fixture).read_bytes())


def wire_parts(fixture: str) -> list[dict[str, Any]]:
    """Every part the server sent, in order (what a verbatim replay must reproduce)."""
    parts: list[dict[str, Any]] = []
    for _, data in sse_events((FIXTURES / fixture).read_bytes()):
        for candidate in json.loads(data).get("candidates", []):
            parts += candidate.get("content", {}).get("parts", [])
    return parts


def assemble(events: list[Event]) -> LangMessage:
    from aiwrapper._conversation._assembler import Assembler

    assembler = Assembler("gemini")
    for event in events:
        assembler.add(event)
    return assembler.finish()


def body_for(
    messages: list[LangMessage], model: str = "gemini-3-pro-preview", **options: Any
) -> dict[str, Any]:
    request = ProviderRequest(
        model=model,
        messages=messages,
        tools=[FakeTool()],
        options=merge_options(LangOptions(**options)),
        stream=True,
    )
    return GeminiProvider(api_key="k").encode(request).body


# --- decoding ---------------------------------------------------------------------------


def test_text_stream_appends_deltas_and_takes_last_usage() -> None:
    prompt_only = {
        "promptTokenCount": 8,
        "totalTokenCount": 8,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 8}],
    }
    final = {**prompt_only, "candidatesTokenCount": 5, "totalTokenCount": 13}
    events = decode("text.sse")
    assert events == [
        TextDelta("Hello"),
        UsageEvent(input_tokens=8, output_tokens=0, raw=prompt_only),
        TextDelta(", world! Ø"),  # the repeated, unchanged usageMetadata gives no event
        UsageEvent(input_tokens=8, output_tokens=5, raw=final),
        FinishEvent("stop", "STOP"),
    ]
    from aiwrapper._conversation._assembler import Assembler

    assembler = Assembler("gemini")
    assembler.add_all(events)
    assert (assembler.usage.input_tokens, assembler.usage.output_tokens) == (8, 5)  # last wins


@pytest.mark.parametrize("fixture", ["text.sse", "calls_ids_split.sse", "calls_no_ids.sse"])
def test_decoding_does_not_depend_on_how_bytes_are_split(fixture: str) -> None:
    raw = (FIXTURES / fixture).read_bytes()
    whole = decode(fixture)
    for cut in range(1, len(raw)):
        from aiwrapper._wire._framing import SSEDecoder

        framer, decoder = SSEDecoder(), GeminiProvider(api_key="k").decode_stream()
        framed = [*framer.feed(raw[:cut]), *framer.feed(raw[cut:]), *framer.flush()]
        events = [e for name, data in framed for e in decoder.feed(name, data)]
        events += decoder.close()
        assert [e for e in events if not isinstance(e, ModelEvent)] == whole, cut


def test_parallel_calls_split_across_chunks_keep_ids_and_first_call_signature() -> None:
    events = decode("calls_ids_split.sse")
    assert [e for e in events if not isinstance(e, UsageEvent)] == [
        ThinkingDelta(PLAN),
        ToolCallStart(0, "fc_7a", "get_weather"),
        PartStateEvent(gemini(SIG_OSLO), index=0),
        ToolCallEnd(0, {"city": "Oslo"}),
        ToolCallStart(1, "fc_7b", "get_weather"),
        PartStateEvent(gemini({}), index=1),  # no signature: only the Gemini marker
        ToolCallEnd(1, {"city": "Rome", "unit": "celsius"}),
        FinishEvent("tool_calls", "STOP"),
    ]
    last_usage = [e for e in events if isinstance(e, UsageEvent)][-1]
    assert (last_usage.input_tokens, last_usage.output_tokens) == (120, 240)
    assert (last_usage.reasoning_tokens, last_usage.cached_input_tokens) == (210, None)


def test_parallel_calls_without_ids_get_none_and_usage_counts_tool_prompt_and_cache() -> None:
    assert decode("calls_no_ids.sse") == [
        TextDelta("Let me check."),
        ToolCallStart(0, None, "get_weather"),
        PartStateEvent(gemini({}), index=0),
        ToolCallEnd(0, {"city": "Oslo"}),
        ToolCallStart(1, None, "get_weather"),
        PartStateEvent(gemini({}), index=1),
        ToolCallEnd(1, {"city": "Rome"}),
        UsageEvent(
            input_tokens=70,
            output_tokens=22,
            cached_input_tokens=32,
            raw={
                "promptTokenCount": 50,
                "candidatesTokenCount": 22,
                "totalTokenCount": 92,
                "toolUsePromptTokenCount": 20,
                "cachedContentTokenCount": 32,
            },
        ),
        FinishEvent("tool_calls", "STOP"),
    ]


def test_signature_on_empty_final_text_part_becomes_its_own_part() -> None:
    events = decode("text_signature_final.sse")
    assert events[:4] == [
        ThinkingDelta("Thinking about it"),
        TextDelta("It is 4 degrees in Oslo."),
        TextDelta("", new_part=True),
        PartStateEvent(gemini("EpUFCpIFAb4+9vTEXTsig==")),
    ]
    message = assemble(events)
    assert [(type(p).__name__, p.text, p.state) for p in message.parts] == [  # type: ignore[union-attr]
        ("ThinkingPart", "Thinking about it", None),
        ("TextPart", "It is 4 degrees in Oslo.", None),
        ("TextPart", "", gemini("EpUFCpIFAb4+9vTEXTsig==")),
    ]


def test_blocked_prompt_raises_bad_request_naming_the_reason() -> None:
    with pytest.raises(
        errors.BadRequestError, match=r"blocked the prompt \(blockReason PROHIBITED_CONTENT\)"
    ):
        decode("blocked_prompt.sse")


def test_safety_stop_finishes_as_content_filter() -> None:
    events = decode("safety_finish.sse")
    assert events[0] == TextDelta("Here is how")
    assert events[-1] == FinishEvent("content_filter", "SAFETY")


def test_malformed_function_call_finishes_as_error() -> None:
    assert decode("malformed_call.sse")[-1] == FinishEvent("error", "MALFORMED_FUNCTION_CALL")


def test_error_object_inside_stream_raises_mapped_class() -> None:
    raw = (FIXTURES / "error_in_stream.sse").read_bytes()
    decoder = GeminiProvider(api_key="k").decode_stream()
    (first, second) = sse_events(raw)
    assert decoder.feed(*first) == [ModelEvent("gemini-2.5-flash"), TextDelta("Partial")]
    with pytest.raises(errors.OverloadedError, match="The model is overloaded") as info:
        decoder.feed(*second)
    assert info.value.status_code == 503
    assert info.value.provider == "gemini"


def test_rate_limit_inside_stream_carries_retry_delay() -> None:
    payload = {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}
            ],
        }
    }
    with pytest.raises(errors.RateLimitError) as info:
        GeminiProvider(api_key="k").decode_stream().feed(None, json.dumps(payload))
    assert info.value.retry_after == 1.5


def test_unknown_error_shape_inside_stream_is_stream_error() -> None:
    with pytest.raises(errors.StreamError, match="something odd"):
        GeminiProvider(api_key="k").decode_stream().feed(
            None, '{"error": {"message": "something odd"}}'
        )


def test_stream_cut_before_finish_reason_is_stream_error() -> None:
    with pytest.raises(errors.StreamError, match="without a finishReason"):
        decode("truncated.sse")


@pytest.mark.parametrize(
    ("data", "cause"),
    [
        ("{not json", ValueError),
        ('{"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}', KeyError),
        ('{"candidates": ["oops"]}', AttributeError),
    ],
)
def test_undecodable_chunks_are_stream_errors_chained_to_the_cause(
    data: str, cause: type[Exception]
) -> None:
    with pytest.raises(errors.StreamError) as info:
        GeminiProvider(api_key="k").decode_stream().feed(None, data)
    assert isinstance(info.value.__cause__, cause)


def test_function_call_args_that_are_not_an_object_are_stream_error() -> None:
    data = (
        '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": [1]}}]}}]}'
    )
    with pytest.raises(errors.StreamError, match="not an object"):
        GeminiProvider(api_key="k").decode_stream().feed(None, data)


def test_unknown_part_kinds_are_kept_verbatim_as_opaque_parts() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    data = json.dumps(
        {"candidates": [{"content": {"role": "model", "parts": [code]}, "finishReason": "STOP"}]}
    )
    decoder = GeminiProvider(api_key="k").decode_stream()
    assert decoder.feed(None, data) == [OpaquePartEvent(ProviderState("gemini", {"part": code}))]
    assert decoder.close() == [FinishEvent("stop", "STOP")]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "error"),
        ("UNEXPECTED_TOOL_CALL", "error"),
        ("TOO_MANY_TOOL_CALLS", "error"),
        ("OTHER", "error"),
        ("LANGUAGE", "error"),
    ],
)
def test_finish_reason_mapping(raw: str, reason: str) -> None:
    decoder = GeminiProvider(api_key="k").decode_stream()
    decoder.feed(None, json.dumps({"candidates": [{"finishReason": raw}]}))
    assert decoder.close() == [FinishEvent(reason, raw)]  # type: ignore[arg-type]


def test_decode_response_gives_the_same_events_as_streaming() -> None:
    body = json.loads((FIXTURES / "response_calls.json").read_bytes())
    assert GeminiProvider(api_key="k").decode_response(body) == [
        ModelEvent("gemini-3-pro-preview"),
        ThinkingDelta("Plan: look up both."),
        ToolCallStart(0, "fc_7a", "get_weather"),
        PartStateEvent(gemini("CtMBAb4+9vWHOLE=="), index=0),
        ToolCallEnd(0, {"city": "Oslo"}),
        ToolCallStart(1, "fc_7b", "get_weather"),
        PartStateEvent(gemini({}), index=1),
        ToolCallEnd(1, {"city": "Rome"}),
        UsageEvent(
            input_tokens=120,
            output_tokens=240,
            reasoning_tokens=210,
            raw={
                "promptTokenCount": 120,
                "candidatesTokenCount": 30,
                "totalTokenCount": 360,
                "thoughtsTokenCount": 210,
            },
        ),
        FinishEvent("tool_calls", "STOP"),
    ]


def test_decode_response_accepts_a_json_array_of_chunks() -> None:
    body = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]},
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "b"}]}, "finishReason": "STOP"}
            ]
        },
    ]
    assert GeminiProvider(api_key="k").decode_response(body) == [
        TextDelta("a"),
        TextDelta("b"),
        FinishEvent("stop", "STOP"),
    ]


# --- two-round loops --------------------------------------------------------------------


def test_two_round_loop_with_ids_returns_signature_and_groups_responses() -> None:
    system = LangMessage.text("system", "Be brief.")
    user = LangMessage.text("user", "Weather in Oslo and Rome?")
    options: dict[str, Any] = {"function_call": "auto", "thinking": "low", "max_tokens": 2048}
    assert body_for([system, user], **options) == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "Weather in Oslo and Rome?"}]}],
        "tools": [{"functionDeclarations": [DECLARATION]}],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        "generationConfig": {
            "maxOutputTokens": 2048,
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "LOW"},
        },
    }
    model = assemble(decode("calls_ids_split.sse"))
    oslo, rome = model.tool_calls
    results = [
        LangMessage.tool_result(oslo, '{"temp_c": 4}'),
        LangMessage.tool_result(rome, "service down", is_error=True, error_type="RuntimeError"),
    ]
    body = body_for([system, user, model, *results], **options)
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Weather in Oslo and Rome?"}]},
        {
            "role": "model",
            "parts": [
                {"text": PLAN, "thought": True},
                {
                    "functionCall": {
                        "id": "fc_7a",
                        "name": "get_weather",
                        "args": {"city": "Oslo"},
                    },
                    "thoughtSignature": SIG_OSLO,
                },
                {
                    "functionCall": {
                        "id": "fc_7b",
                        "name": "get_weather",
                        "args": {"city": "Rome", "unit": "celsius"},
                    }
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "fc_7a",
                        "name": "get_weather",
                        "response": {"output": {"temp_c": 4}},
                    }
                },
                {
                    "functionResponse": {
                        "id": "fc_7b",
                        "name": "get_weather",
                        "response": {"error": "service down"},
                    }
                },
            ],
        },
    ]
    assert body["contents"][1]["parts"] == wire_parts("calls_ids_split.sse")  # verbatim replay


def test_two_round_loop_without_ids_never_sends_invented_ids() -> None:
    user = LangMessage.text("user", "Weather in Oslo and Rome?")
    model = assemble(decode("calls_no_ids.sse"))
    oslo, rome = model.tool_calls
    assert oslo.synthetic_id
    assert rome.synthetic_id
    assert oslo.id != rome.id
    results = [LangMessage.tool_result(oslo, "sunny"), LangMessage.tool_result(rome, "[1, 2]")]
    body = body_for([user, model, *results], model="gemini-2.0-flash")
    assert body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Let me check."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}},
                {"functionResponse": {"name": "get_weather", "response": {"output": [1, 2]}}},
            ],
        },
    ]
    assert body["contents"][1]["parts"] == wire_parts("calls_no_ids.sse")
    # The same unsigned Gemini 2 turn sent to Gemini 3 gets the placeholder on its first call.
    later = body_for([user, model, *results])["contents"][1]["parts"]
    assert later[1:] == [
        {
            "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
            "thoughtSignature": "skip_thought_signature_validator",
        },
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
    ]


def test_signed_text_turn_is_replayed_verbatim() -> None:
    model = assemble(decode("text_signature_final.sse"))
    body = body_for([LangMessage.text("user", "Oslo?"), model, LangMessage.text("user", "Rome?")])
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Oslo?"}]},
        {"role": "model", "parts": wire_parts("text_signature_final.sse")},
        {"role": "user", "parts": [{"text": "Rome?"}]},
    ]


def test_foreign_calls_get_placeholder_signature_on_first_call_and_no_ids() -> None:
    arguments = '{"city":"Oslo"}'
    history = LangMessages(
        [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "",
                "thinking": "another provider's reasoning",
                "tool_calls": [
                    {"id": "call_abc", "function": {"name": "get_weather", "arguments": arguments}},
                    {"id": "call_def", "function": {"name": "get_weather", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_abc", "name": "get_weather", "content": "4C"},
            {"role": "tool", "tool_call_id": "call_def", "name": "get_weather", "content": "x"},
            {"role": "user", "content": "Thanks. And Rome?"},
        ]
    )
    assert body_for(list(history))["contents"] == [
        {"role": "user", "parts": [{"text": "Weather?"}]},
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                    "thoughtSignature": "skip_thought_signature_validator",
                },
                {"functionCall": {"name": "get_weather", "args": {}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "4C"}}},
                {"functionResponse": {"name": "get_weather", "response": {"output": "x"}}},
            ],
        },
        {"role": "user", "parts": [{"text": "Thanks. And Rome?"}]},
    ]


def test_thinking_with_another_providers_state_is_dropped_even_in_a_gemini_turn() -> None:
    call = assemble(decode("calls_no_ids.sse")).tool_calls[0]
    model = LangMessage(
        "assistant",
        [
            ThinkingPart("secret", ProviderState("anthropic", {"signature": "s"})),
            ThinkingPart("mine"),
            TextPart("ok", gemini("T1")),
            ToolCallPart(call, gemini({})),
        ],
    )
    result = LangMessage.tool_result(call, "4")
    assert body_for([model, result], model="gemini-2.5-flash")["contents"][0] == {
        "role": "model",
        "parts": [
            {"text": "mine", "thought": True},
            {"text": "ok", "thoughtSignature": "T1"},
            {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}},
        ],
    }


@pytest.mark.parametrize(
    "call",
    [
        {"name": "f", "partialArgs": [{"jsonPath": "$.city", "stringValue": "Os"}]},
        {"name": "f", "args": {}, "willContinue": True},
    ],
)
def test_vertex_streamed_call_arguments_are_refused_not_run_piecewise(call: Any) -> None:
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}
    with pytest.raises(errors.StreamError, match="streamFunctionCallArguments"):
        GeminiProvider(api_key="k").decode_stream().feed(None, json.dumps(chunk))


def test_usage_changing_mid_stream_gives_one_event_per_distinct_value() -> None:
    decoder = GeminiProvider(api_key="k").decode_stream()
    usage = [{"promptTokenCount": 5}, {"promptTokenCount": 5}, {"promptTokenCount": 6}]
    events = [
        e
        for u in usage
        for e in decoder.feed(None, json.dumps({"candidates": [{}], "usageMetadata": u}))
    ]
    assert events == [
        UsageEvent(input_tokens=5, output_tokens=0, raw={"promptTokenCount": 5}),
        UsageEvent(input_tokens=6, output_tokens=0, raw={"promptTokenCount": 6}),
    ]


def test_an_error_given_as_plain_text_inside_the_stream_keeps_its_text() -> None:
    with pytest.raises(errors.StreamError, match="error inside the Gemini stream: quota gone"):
        GeminiProvider(api_key="k").decode_stream().feed(None, '{"error": "quota gone"}')
