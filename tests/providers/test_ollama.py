"""The Ollama native provider: NDJSON fixtures to events, request bodies, hosts, errors."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest

from aiwrapper import Lang, LangResult, tool
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
from aiwrapper._conversation._messages import (
    JSONValue,
    LangMessage,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import Provider, ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._framing import NDJSONDecoder
from aiwrapper.providers.ollama import OllamaProvider, default_base_url
from aiwrapper.providers.ollama._content import calls_from_text

FIXTURES = Path(__file__).parent.parent / "fixtures" / "ollama"
NAMES = ("get_weather", "get_time")
METRICS = {
    "total_duration": 912000000,
    "load_duration": 31000000,
    "prompt_eval_duration": 120000000,
    "eval_duration": 700000000,
}

_conforms: Provider = OllamaProvider()  # mypy checks the protocol here


def usage(prompt: int, output: int) -> UsageEvent:
    raw: dict[str, JSONValue] = {**METRICS, "prompt_eval_count": prompt, "eval_count": output}
    return UsageEvent(input_tokens=prompt, output_tokens=output, raw=raw)


def chunked(data: bytes, size: int | None) -> list[bytes]:
    if size is None:
        return [data]
    return [data[i : i + size] for i in range(0, len(data), size)]


def decode_bytes(
    data: bytes,
    tool_names: Collection[str] = (),
    *,
    size: int | None = None,
    provider: OllamaProvider | None = None,
) -> list[Event]:
    decoder = (provider or OllamaProvider()).decode_stream(declaring(tool_names))
    framing, events = NDJSONDecoder(), []
    for chunk in chunked(data, size):
        for line in framing.feed(chunk):
            events += decoder.feed(None, line)
    for line in framing.flush():
        events += decoder.feed(None, line)
    # The answering model (ModelEvent) is checked in tests/seeds/test_model_and_truncation.py.
    return [e for e in events + decoder.close() if not isinstance(e, ModelEvent)]


def decode(name: str, tool_names: Collection[str] = (), **kwargs: Any) -> list[Event]:
    return decode_bytes((FIXTURES / name).read_bytes(), tool_names, **kwargs)


def ndjson(*contents: str, done: bool = True) -> bytes:
    lines = [{"message": {"role": "assistant", "content": c}, "done": False} for c in contents]
    if done:
        lines.append({"message": {"role": "assistant", "content": ""}, "done": True})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


# --- stream decoding ------------------------------------------------------------------------


def test_text_stream_becomes_text_deltas_usage_and_finish() -> None:
    assert decode("text.ndjson") == [
        TextDelta("Hello"),
        TextDelta(", wor"),
        TextDelta("ld! ☀"),
        usage(21, 7),
        FinishEvent("stop", "stop"),
    ]


def test_crlf_lines_decode_like_lf_lines() -> None:
    assert decode("text_crlf.ndjson") == decode("text.ndjson")


@pytest.mark.parametrize(
    "name",
    [
        "text.ndjson",
        "thinking.ndjson",
        "parallel_calls.ndjson",
        "think_tags.ndjson",
        "think_tags_json_call.ndjson",
    ],
)
def test_events_do_not_depend_on_network_chunk_sizes(name: str) -> None:
    whole = decode(name, NAMES)
    for size in (1, 2, 3, 7, 64):
        assert decode(name, NAMES, size=size) == whole


def test_thinking_field_becomes_thinking_deltas() -> None:
    assert decode("thinking.ndjson") == [
        ThinkingDelta("The user"),
        ThinkingDelta(" greets me."),
        TextDelta("Hi"),
        TextDelta(" there."),
        usage(30, 12),
        FinishEvent("stop", "stop"),
    ]


def test_parallel_calls_in_one_line_keep_server_ids_and_finish_with_tool_calls() -> None:
    assert decode("parallel_calls.ndjson", NAMES) == [
        ThinkingDelta("Two cities."),
        ToolCallStart(0, "call_k2j9x0aa", "get_weather"),
        ToolCallEnd(0, {"city": "Tokyo", "unit": "celsius"}),
        ToolCallStart(1, "call_p3m8z1bb", "get_weather"),
        ToolCallEnd(1, {"city": "Paris", "unit": "celsius"}),
        usage(169, 38),
        FinishEvent("tool_calls", "stop"),
    ]


def test_calls_across_two_lines_are_indexed_across_the_turn() -> None:
    assert decode("calls_two_lines.ndjson", NAMES) == [
        TextDelta("Checking both."),
        ToolCallStart(0, "call_k2j9x0aa", "get_weather"),
        ToolCallEnd(0, {"city": "Tokyo", "unit": "celsius"}),
        ToolCallStart(1, "call_q7r6s5cc", "get_time"),
        ToolCallEnd(1, {}),
        usage(169, 40),
        FinishEvent("tool_calls", "stop"),
    ]


def test_calls_from_an_old_server_have_no_ids_and_get_synthetic_ones() -> None:
    events = decode("calls_no_ids.ndjson", NAMES)
    assert events == [
        ToolCallStart(0, None, "get_weather"),
        ToolCallEnd(0, {"city": "Oslo"}),
        ToolCallStart(1, None, "get_time"),
        ToolCallEnd(1, {"zone": "Europe/Oslo"}),
        usage(88, 25),
        FinishEvent("tool_calls", "stop"),
    ]
    assembler = Assembler("ollama")
    for event in events:
        assembler.add(event)
    calls = assembler.finish().tool_calls
    assert [(c.synthetic_id, c.id.startswith("call_")) for c in calls] == [(True, True)] * 2
    assert calls[0].id != calls[1].id


def test_done_reason_length_maps_to_length() -> None:
    assert decode("length.ndjson")[-1] == FinishEvent("length", "length")


def test_string_arguments_are_passed_as_a_fragment_for_validation() -> None:
    line = {"message": {"tool_calls": [{"function": {"name": "f", "arguments": '{"a":1}'}}]}}
    events = OllamaProvider().decode_stream().feed(None, json.dumps(line))
    assert events == [ToolCallStart(0, None, "f"), ToolCallDelta(0, '{"a":1}'), ToolCallEnd(0)]


def test_think_tags_split_across_lines_become_thinking() -> None:
    assert decode("think_tags.ndjson") == [
        ThinkingDelta("The user wants"),
        ThinkingDelta(" a greeting.\n"),
        TextDelta("Hel"),
        TextDelta("lo!"),
        usage(15, 14),
        FinishEvent("stop", "stop"),
    ]


def test_think_tags_are_found_wherever_a_chunk_boundary_falls() -> None:
    text = "<think>\nPlan: greet.</think>\n\nHello <b>you</b>"
    for cut in range(len(text) + 1):
        events = decode_bytes(ndjson(text[:cut], text[cut:]))
        thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
        answer = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert (cut, thinking, answer) == (cut, "Plan: greet.", "Hello <b>you</b>")


def test_a_less_than_sign_is_held_only_until_it_cannot_start_a_tag() -> None:
    # One character per line: plain characters take the fast path, a "<" waits for the next.
    events = decode_bytes(ndjson(*"a<b<think>\n x<y</think>\n\n< z"))
    assert events[:-2] == [
        TextDelta("a"),
        TextDelta("<b"),
        ThinkingDelta("x"),
        ThinkingDelta("<y"),
        TextDelta("< "),
        TextDelta("z"),
    ]


def test_an_unclosed_think_tag_is_flushed_as_thinking_at_done() -> None:
    events = decode_bytes(ndjson("<think>still going</th"))
    assert events[:3] == [ThinkingDelta("still going"), ThinkingDelta("</th"), UsageEvent()]


def test_error_line_raises_stream_error_after_earlier_events() -> None:
    decoder = OllamaProvider().decode_stream()
    lines = (FIXTURES / "error_line.ndjson").read_text().splitlines()
    assert decoder.feed(None, lines[0]) == [TextDelta("Partial")]
    with pytest.raises(errors.StreamError) as caught:
        decoder.feed(None, lines[1])
    assert str(caught.value) == (
        "Ollama reported an error mid-stream: "
        "an error was encountered while running the model: unexpected EOF"
    )


@pytest.mark.parametrize(
    ("message", "cls"),
    [
        ("you (alice) have reached your hourly rate limit", errors.RateLimitError),
        (
            "server busy, please try again. maximum pending requests exceeded",
            errors.OverloadedError,
        ),
    ],
)
def test_error_lines_that_name_their_kind_raise_that_class(
    message: str, cls: type[errors.ProviderError]
) -> None:
    with pytest.raises(cls) as caught:
        OllamaProvider().decode_stream().feed(None, json.dumps({"error": message}))
    assert (caught.value.message, caught.value.provider) == (message, "ollama")


def test_a_stream_without_its_done_line_is_a_stream_error() -> None:
    with pytest.raises(errors.StreamError, match="before its final 'done' line"):
        decode("missing_done.ndjson")


@pytest.mark.parametrize(
    "line",
    ['{"message": {"content": "a"', "[1, 2]", '{"message": {"tool_calls": [{"name": "f"}]}}'],
)
def test_unreadable_lines_are_stream_errors(line: str) -> None:
    with pytest.raises(errors.StreamError):
        OllamaProvider().decode_stream().feed(None, line)


def test_lines_after_done_are_ignored() -> None:
    decoder = OllamaProvider().decode_stream()
    decoder.feed(None, '{"message": {"content": ""}, "done": true}')
    assert decoder.feed(None, '{"message": {"content": "late"}, "done": false}') == []
    assert decoder.close() == []


def test_whole_response_gives_the_same_events_as_a_stream() -> None:
    body = json.loads((FIXTURES / "response.json").read_text())
    assert OllamaProvider().decode_response(body, declaring(NAMES)) == [
        ThinkingDelta("Need Oslo."),
        ToolCallStart(0, "call_k2j9x0aa", "get_weather"),
        ToolCallEnd(0, {"city": "Oslo"}),
        UsageEvent(
            input_tokens=169,
            output_tokens=18,
            raw={**METRICS, "prompt_eval_count": 169, "eval_count": 18},
        ),
        ModelEvent("qwen3"),
        FinishEvent("tool_calls", "stop"),
    ]


# --- tool calls written as JSON text --------------------------------------------------------


def test_json_answer_naming_a_declared_tool_becomes_a_call() -> None:
    assert decode("content_json_call.ndjson", NAMES) == [
        ToolCallStart(0, None, "get_weather"),
        ToolCallEnd(0, {"city": "Oslo"}),
        usage(60, 20),
        FinishEvent("tool_calls", "stop"),
    ]


def test_tool_call_tags_in_the_answer_become_calls() -> None:
    assert decode("content_tool_call_tags.ndjson", NAMES)[:4] == [
        ToolCallStart(0, None, "get_weather"),
        ToolCallEnd(0, {"city": "Oslo"}),
        ToolCallStart(1, None, "get_time"),
        ToolCallEnd(1, {"zone": "UTC"}),
    ]


def test_json_answer_stays_text_when_the_switch_is_off() -> None:
    provider = OllamaProvider(tool_calls_in_content=False)
    events = decode("content_json_call.ndjson", NAMES, provider=provider)
    assert events[:4] == [
        TextDelta('{"name'),
        TextDelta('": "get_weather", "arg'),
        TextDelta('uments": {"city": "Os'),
        TextDelta('lo"}}'),
    ]
    assert events[-1] == FinishEvent("stop", "stop")


def test_json_answer_stays_text_without_declared_tools() -> None:
    assert decode("content_json_call.ndjson")[0] == TextDelta('{"name')


def test_json_answer_naming_an_undeclared_tool_is_released_as_one_text_delta() -> None:
    events = decode("content_json_call.ndjson", ["get_time"])
    text = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    assert events == [TextDelta(text), usage(60, 20), FinishEvent("stop", "stop")]


def test_text_that_may_be_a_call_is_held_until_done_and_plain_text_is_not() -> None:
    decoder = OllamaProvider().decode_stream(declaring(NAMES))
    assert decoder.feed(None, '{"message": {"content": "  `"}}') == []
    assert decoder.feed(None, '{"message": {"content": "``json\\n{"}}') == []
    plain = OllamaProvider().decode_stream(declaring(NAMES))
    assert plain.feed(None, '{"message": {"content": " "}}') == []
    assert plain.feed(None, '{"message": {"content": "Sure"}}') == [TextDelta(" Sure")]
    assert plain.feed(None, '{"message": {"content": "!"}}') == [TextDelta("!")]


def test_native_calls_win_over_json_text() -> None:
    call = {"function": {"name": "get_time", "arguments": {}}}
    text = '{"name": "get_weather", "arguments": {}}'
    lines = [
        json.dumps({"message": {"content": text}}),
        json.dumps({"message": {"tool_calls": [call]}, "done": True}),
    ]
    decoder = OllamaProvider().decode_stream(declaring(NAMES))
    events = decoder.feed(None, lines[0]) + decoder.feed(None, lines[1])
    assert events[:3] == [ToolCallStart(0, None, "get_time"), ToolCallEnd(0, {}), TextDelta(text)]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ('{"name": "get_time", "arguments": {}}', [("get_time", {})]),
        ('{"name": "get_time"}', [("get_time", {})]),
        (
            '{"type": "function", "name": "get_time", "parameters": {"zone": "UTC"}}',
            [("get_time", {"zone": "UTC"})],
        ),
        (
            '{"name": "get_time", "arguments": "{\\"zone\\": \\"UTC\\"}"}',
            [("get_time", {"zone": "UTC"})],
        ),
        (
            '{"type": "function", "function": {"name": "get_time", "arguments": {"a": 1}}}',
            [("get_time", {"a": 1})],
        ),
        (
            '```json\n[{"name": "get_time", "arguments": {}},\n {"name": "get_weather",'
            ' "arguments": {"city": "Oslo"}}]\n```',
            [("get_time", {}), ("get_weather", {"city": "Oslo"})],
        ),
        (
            '{"name": "get_time", "arguments": {}}; {"name": "get_time", "arguments": {"a": 2}}',
            [("get_time", {}), ("get_time", {"a": 2})],
        ),
        ('<tool_call>\n{"name": "get_time", "arguments": {}}', [("get_time", {})]),
        ('{"name": "get_time", "arguments": null}', [("get_time", {})]),
        ('{"name": "get_time", "parameters": null}', [("get_time", {})]),
    ],
)
def test_call_shapes_recognized_in_text(text: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
    assert calls_from_text(text, NAMES) == calls


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_all", "arguments": {}}',
        '{"name": "get_time", "arguments": {}, "description": "x"}',
        '{"name": "get_time", "arguments": {}} and that is it',
        '{"name": "get_time", "arguments": [1]}',
        '{"name": "get_time", "arguments": "not json"}',
        '{"type": "tool", "name": "get_time"}',
        '[{"name": "get_time", "arguments": {}}, {"name": "nope", "arguments": {}}]',
        '<tool_call>{"name": "get_time"}</tool_call> done',
        "[]",
        '{"name": ["get_time"]}',
        '{"name": "get_time", "arguments": 3}',
        "```python\nprint(1)\n```",
    ],
)
def test_other_json_stays_text(text: str) -> None:
    assert calls_from_text(text, NAMES) is None


# --- request encoding -----------------------------------------------------------------------


class FakeTool:
    def __init__(self, name: str) -> None:
        self.name = name

    def schema_for(self, dialect: str) -> dict[str, Any]:
        assert dialect == "ollama"
        parameters = {"type": "object", "properties": {"city": {"type": "string"}}}
        return {"type": "function", "function": {"name": self.name, "parameters": parameters}}


TOOLS = [FakeTool("get_weather"), FakeTool("get_time")]
TOOL_SCHEMAS = [tool.schema_for("ollama") for tool in TOOLS]


def request(
    messages: list[LangMessage], tools: Any = TOOLS, stream: bool = True, **options: Any
) -> ProviderRequest:
    return ProviderRequest("qwen3", messages, tools, merge_options(options), stream)


def declaring(names: Collection[str]) -> ProviderRequest:
    """A request declaring tools of these names: the decoder reads them from it."""
    return request([], [FakeTool(name) for name in names])


def two_round_conversation() -> list[LangMessage]:
    server_call = FunctionCall("call_k2j9x0aa", "get_weather", {"city": "Oslo"})
    made_up = FunctionCall("call_0123abcd", "get_time", {"zone": "CET"}, synthetic_id=True)
    assistant = LangMessage(
        "assistant",
        [
            ThinkingPart("Need weather and time."),
            TextPart("Let me check."),
            ToolCallPart(server_call),
            ToolCallPart(made_up),
        ],
    )
    return [
        LangMessage.text("system", "Be brief."),
        LangMessage.text("user", "Weather and time in Oslo?"),
        assistant,
        LangMessage.tool_result(server_call, '{"temp_c":4}'),
        LangMessage.tool_result(made_up, "zone unknown", is_error=True, error_type="ValueError"),
    ]


def test_two_round_loop_request_bodies() -> None:
    provider = OllamaProvider(keep_alive="10m")
    options: dict[str, Any] = {
        "temperature": 0.2,
        "max_tokens": 256,
        "stop": "END",
        "thinking": True,
    }
    first = provider.encode(request(two_round_conversation()[:2], **options))
    assert first.url == "http://localhost:11434/api/chat"
    assert first.headers == {}
    assert first.stream is True
    assert first.body == {
        "model": "qwen3",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather and time in Oslo?"},
        ],
        "tools": TOOL_SCHEMAS,
        "stream": True,
        "think": True,
        "options": {"temperature": 0.2, "num_predict": 256, "stop": ["END"]},
        "keep_alive": "10m",
    }
    second = provider.encode(request(two_round_conversation(), **options))
    assert second.body["messages"][2:] == [
        {
            "role": "assistant",
            "content": "Let me check.",
            "thinking": "Need weather and time.",
            "tool_calls": [
                {
                    "id": "call_k2j9x0aa",
                    "function": {"name": "get_weather", "arguments": {"city": "Oslo"}},
                },
                {"function": {"name": "get_time", "arguments": {"zone": "CET"}}},
            ],
        },
        {
            "role": "tool",
            "tool_name": "get_weather",
            "tool_call_id": "call_k2j9x0aa",
            "content": '{"temp_c":4}',
        },
        {
            "role": "tool",
            "tool_name": "get_time",
            "content": '{"error":"zone unknown","error_type":"ValueError"}',
        },
    ]
    assert {k: v for k, v in second.body.items() if k != "messages"} == {
        k: v for k, v in first.body.items() if k != "messages"
    }


def test_minimal_request_has_explicit_stream_false_and_no_optional_keys() -> None:
    call = OllamaProvider().encode(request([LangMessage.text("user", "Hi")], [], stream=False))
    assert call.stream is False
    assert call.body == {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "Hi"}],
        "stream": False,
    }


def test_cloud_key_base_url_and_extra_headers() -> None:
    provider = OllamaProvider(base_url="https://ollama.com/", api_key="sk-1")
    call = provider.encode(request([], [], extra_headers={"X-Trace": "1"}))
    assert call.url == "https://ollama.com/api/chat"
    assert call.headers == {
        "Authorization": "Bearer sk-1",
        "X-Trace": "1",
    }


@pytest.mark.parametrize(
    ("thinking", "think"),
    [(True, True), (False, False), ("low", "low"), ("high", "high"), (2048, True), (0, False)],
)
def test_thinking_option_maps_to_think(thinking: Any, think: Any) -> None:
    body = OllamaProvider().encode(request([], [], thinking=thinking)).body
    assert body["think"] == think


def test_extra_body_adds_keys_and_merges_into_options() -> None:
    extra: dict[str, Any] = {"options": {"num_ctx": 8192}, "format": "json"}
    body = (
        OllamaProvider()
        .encode(request([], [], temperature=0.1, max_tokens=64, extra_body=extra))
        .body
    )
    assert body == {
        "model": "qwen3",
        "messages": [],
        "stream": True,
        "options": {"temperature": 0.1, "num_predict": 64, "num_ctx": 8192},
        "format": "json",
    }


@pytest.mark.parametrize(
    ("extra", "path"),
    [({"stream": False}, "stream"), ({"options": {"temperature": 0.9}}, "options.temperature")],
)
def test_extra_body_never_replaces_what_the_sdk_set(extra: dict[str, Any], path: str) -> None:
    with pytest.raises(errors.ConfigError, match=f"extra_body cannot replace '{path}'"):
        OllamaProvider().encode(request([], [], temperature=0.1, extra_body=extra))


def test_function_call_none_omits_tools_and_auto_sends_them() -> None:
    provider = OllamaProvider()
    assert "tools" not in provider.encode(request([], function_call="none")).body
    assert provider.encode(request([], function_call="auto")).body["tools"] == TOOL_SCHEMAS


@pytest.mark.parametrize("choice", ["required", "get_time", {"name": "get_time"}])
def test_forcing_a_call_is_a_config_error(choice: Any) -> None:
    with pytest.raises(errors.ConfigError, match="cannot force a tool call"):
        OllamaProvider().encode(request([], function_call=choice))


def test_parallel_tool_calls_false_is_a_config_error_only_with_tools() -> None:
    with pytest.raises(errors.ConfigError, match="parallel_tool_calls"):
        OllamaProvider().encode(request([], parallel_tool_calls=False))
    assert "tools" not in OllamaProvider().encode(request([], [], parallel_tool_calls=False)).body
    assert OllamaProvider().encode(request([], parallel_tool_calls=True)).body["tools"]


def test_other_providers_reasoning_is_dropped_and_ours_is_kept() -> None:
    signed = ProviderState("anthropic", {"signature": "sig"})
    message = LangMessage(
        "assistant",
        [
            ThinkingPart("secret", signed),
            OpaquePart(ProviderState("anthropic", {"type": "redacted_thinking"}), "thinking"),
            ThinkingPart("mine", ProviderState("ollama", {})),
            TextPart("Answer", ProviderState("gemini", {"thoughtSignature": "x"})),
        ],
    )
    body = OllamaProvider().encode(request([message], [])).body
    assert body["messages"] == [{"role": "assistant", "content": "Answer", "thinking": "mine"}]


def test_tool_result_without_a_name_takes_its_calls_name() -> None:
    call = FunctionCall("call_1", "get_time", {})
    result = LangMessage("tool", [TextPart("12:00")], tool_call_id="call_1")
    messages = [LangMessage("assistant", [ToolCallPart(call)]), result]
    body = OllamaProvider().encode(request(messages, [])).body
    assert body["messages"][1] == {
        "role": "tool",
        "tool_name": "get_time",
        "tool_call_id": "call_1",
        "content": "12:00",
    }


def test_decoded_calls_replay_with_server_ids_only() -> None:
    assembler = Assembler("ollama")
    for event in decode("calls_no_ids.ndjson", NAMES)[:2] + decode("parallel_calls.ndjson")[3:5]:
        assembler.add(event)
    body = OllamaProvider().encode(request([assembler.finish()], [])).body
    assert body["messages"][0]["tool_calls"] == [
        {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
        {
            "id": "call_p3m8z1bb",
            "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}},
        },
    ]


# --- OLLAMA_HOST ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (None, "http://localhost:11434"),
        ("", "http://localhost:11434"),
        ("example.com", "http://example.com:11434"),
        ("example.com:8080", "http://example.com:8080"),
        ("0.0.0.0", "http://localhost:11434"),
        ("0.0.0.0:9999", "http://localhost:9999"),
        (":11435", "http://localhost:11435"),
        ("http://example.com", "http://example.com"),
        ("https://ollama.com", "https://ollama.com"),
        ("HTTPS://gpu.lan:443/ollama/", "https://gpu.lan:443/ollama"),
        ("http://10.0.0.5:11434", "http://10.0.0.5:11434"),
        ("::1", "http://[::1]:11434"),
        ("[::1]:8000", "http://[::1]:8000"),
        ("http://[::]:11434", "http://localhost:11434"),
    ],
)
def test_ollama_host_follows_ollama_client_rules(value: str | None, url: str) -> None:
    env = {} if value is None else {"OLLAMA_HOST": value}
    assert default_base_url(env) == url


@pytest.mark.parametrize("value", ["ftp://example.com", "example.com:port"])
def test_bad_ollama_host_is_a_config_error(value: str) -> None:
    with pytest.raises(errors.ConfigError, match="OLLAMA_HOST"):
        default_base_url({"OLLAMA_HOST": value})


# --- HTTP errors ----------------------------------------------------------------------------


def http_error(status: int, body: bytes, headers: dict[str, str] | None = None) -> Any:
    return OllamaProvider().error(status, body, headers or {})


def test_model_without_tool_support_says_so_and_suggests_a_model() -> None:
    error = http_error(
        400, b'{"error":"registry.ollama.ai/library/gemma:2b does not support tools"}'
    )
    assert type(error) is errors.BadRequestError
    assert error.message == (
        "registry.ollama.ai/library/gemma:2b does not support tools: this model cannot call "
        "functions; use a tool-capable model (e.g. qwen3 or llama3.1, "
        "see https://ollama.com/search?c=tools)"
    )
    assert (error.status_code, error.provider) == (400, "ollama")
    assert error.body == {"error": "registry.ollama.ai/library/gemma:2b does not support tools"}


def test_missing_model_suggests_ollama_pull() -> None:
    error = http_error(404, b'{"error":"model \\"llama3.2\\" not found, try pulling it first"}')
    assert type(error) is errors.NotFoundError
    assert error.message == (
        'model "llama3.2" not found, try pulling it first (run `ollama pull llama3.2`)'
    )


def test_unknown_path_suggests_the_server_root() -> None:
    error = http_error(404, b"404 page not found")
    assert type(error) is errors.NotFoundError
    assert error.message == (
        "404 page not found (base_url must be the server root, like http://localhost:11434)"
    )


def test_thinking_unsupported_says_to_unset_it() -> None:
    error = http_error(400, b'{"error":"\\"llama3.1\\" does not support thinking"}')
    assert (
        error.message
        == '"llama3.1" does not support thinking: leave the thinking option unset for this model'
    )


@pytest.mark.parametrize(
    ("status", "body", "cls", "message"),
    [
        (
            401,
            b'{"error":"unauthorized"}',
            errors.AuthenticationError,
            "unauthorized (ollama.com needs an API key: OLLAMA_API_KEY)",
        ),
        (429, b'{"error":"too many requests"}', errors.RateLimitError, "too many requests"),
        (500, b"Internal Server Error", errors.ServerError, "Internal Server Error"),
        (
            502,
            b'{"error":"cloud model unreachable"}',
            errors.ServerError,
            "cloud model unreachable",
        ),
        (503, b"", errors.OverloadedError, "HTTP 503"),
    ],
)
def test_statuses_map_to_error_classes(
    status: int, body: bytes, cls: type[errors.ProviderError], message: str
) -> None:
    error = http_error(status, body, {"Retry-After": "2"})
    assert (type(error), error.message, error.retry_after) == (cls, message, 2.0)


# --- through Lang and the HTTP glue ---------------------------------------------------------


def mock_ollama(replies: list[bytes], seen: list[dict[str, Any]]) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == "http://localhost:11434/api/chat"
        seen.append(json.loads(request.content))
        headers = {"Content-Type": "application/x-ndjson"}
        return httpx.Response(200, content=replies[len(seen) - 1], headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather in a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: 4 {unit}"


async def run_loop(replies: list[str]) -> tuple[LangResult, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    client = mock_ollama([(FIXTURES / name).read_bytes() for name in replies], seen)
    async with Lang.ollama("qwen3", base_url="http://localhost:11434", http_client=client) as lang:
        result = await lang.ask("Weather in Tokyo and Paris?", functions=[get_weather])
    return result, seen


@pytest.mark.anyio
async def test_two_round_loop_over_http_sends_results_in_call_order() -> None:
    result, seen = await run_loop(["parallel_calls.ndjson", "text.ndjson"])
    assert result.answer == "Hello, world! ☀"
    assert [c.result for c in result.function_calls] == ["Tokyo: 4 celsius", "Paris: 4 celsius"]
    user = {"role": "user", "content": "Weather in Tokyo and Paris?"}
    request = {"model": "qwen3", "tools": [get_weather.schema_for("ollama")], "stream": True}
    assert seen[0] == {**request, "messages": [user]}
    assert seen[1] == {
        **request,
        "messages": [
            user,
            {
                "role": "assistant",
                "content": "",
                "thinking": "Two cities.",
                "tool_calls": [
                    {
                        "id": "call_k2j9x0aa",
                        "function": {
                            "name": "get_weather",
                            "arguments": {"city": "Tokyo", "unit": "celsius"},
                        },
                    },
                    {
                        "id": "call_p3m8z1bb",
                        "function": {
                            "name": "get_weather",
                            "arguments": {"city": "Paris", "unit": "celsius"},
                        },
                    },
                ],
            },
            {
                "role": "tool",
                "tool_name": "get_weather",
                "tool_call_id": "call_k2j9x0aa",
                "content": "Tokyo: 4 celsius",
            },
            {
                "role": "tool",
                "tool_name": "get_weather",
                "tool_call_id": "call_p3m8z1bb",
                "content": "Paris: 4 celsius",
            },
        ],
    }
    assert (result.usage.input_tokens, result.usage.output_tokens) == (169 + 21, 38 + 7)


@pytest.mark.anyio
async def test_json_written_call_runs_through_the_loop_without_ids_on_the_wire() -> None:
    result, seen = await run_loop(["content_json_call.ndjson", "text.ndjson"])
    assert [(c.name, c.result) for c in result.function_calls] == [
        ("get_weather", "Oslo: 4 celsius")
    ]
    assert seen[1]["messages"][1:] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
        },
        {"role": "tool", "tool_name": "get_weather", "content": "Oslo: 4 celsius"},
    ]


# --- review additions: edge cases of the quirks, cross-provider replay, errors ----------------


def test_think_tags_then_a_fenced_json_call_give_thinking_and_a_call() -> None:
    assert decode("think_tags_json_call.ndjson", NAMES) == [
        ThinkingDelta("Need the"),
        ThinkingDelta(" weather."),
        ToolCallStart(0, None, "get_weather"),
        ToolCallEnd(0, {}),
        usage(70, 30),
        FinishEvent("tool_calls", "stop"),
    ]


def test_a_held_answer_that_is_not_a_call_is_released_whole_at_done() -> None:
    text = "[1] First point.\n[2] Second."
    events = decode_bytes(ndjson("[1] First", " point.\n[2] Second."), NAMES)
    assert events[:2] == [TextDelta(text), UsageEvent()]
    assert events[-1] == FinishEvent("stop", None)


def test_a_cut_off_json_call_stays_text_and_finishes_with_length() -> None:
    lines = [
        {"message": {"content": '{"name": "get_weather", "arguments": {"ci'}, "done": False},
        {"message": {"content": ""}, "done": True, "done_reason": "length", "eval_count": 9},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    events = decode_bytes(data, NAMES)
    assert events == [
        TextDelta('{"name": "get_weather", "arguments": {"ci'),
        UsageEvent(None, 9, raw={"eval_count": 9}),
        FinishEvent("length", "length"),
    ]


def test_a_null_error_key_is_not_an_error() -> None:
    decoder = OllamaProvider().decode_stream()
    line = '{"message": {"content": "Hi"}, "done": false, "error": null}'
    assert decoder.feed(None, line) == [TextDelta("Hi")]


def test_the_done_line_may_carry_content_thinking_and_calls() -> None:
    line = {
        "message": {
            "role": "assistant",
            "content": "Checking.",
            "thinking": "Oslo.",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
        },
        "done": True,
        "done_reason": "stop",
    }
    assert OllamaProvider().decode_stream(declaring(NAMES)).feed(None, json.dumps(line)) == [
        ThinkingDelta("Oslo."),
        TextDelta("Checking."),
        ToolCallStart(0, None, "get_weather"),
        ToolCallEnd(0, {"city": "Oslo"}),
        UsageEvent(),
        FinishEvent("tool_calls", "stop"),
    ]


def test_history_from_other_providers_replays_ids_they_issued_and_never_made_up_ones() -> None:
    gemini = FunctionCall(
        "function-call-8f2e6a1c-3b4d-4e5f-a6b7-c8d9e0f1a2b3",
        "get_weather",
        {"city": "Oslo"},
        provider="gemini",
    )
    claude = FunctionCall("toolu_01A09q90qw90lq917835lq9", "get_time", {}, provider="anthropic")
    made_up = FunctionCall("call_0123abcd", "get_time", {"zone": "CET"}, synthetic_id=True)
    signed = ThinkingPart("Plan.", ProviderState("anthropic", {"signature": "c2ln"}))
    messages = [
        LangMessage(
            "assistant",
            [signed, ToolCallPart(gemini), ToolCallPart(claude), ToolCallPart(made_up)],
        ),
        LangMessage.tool_result(gemini, "4C"),
        LangMessage.tool_result(claude, "denied", is_error=True, error_type="Denied"),
        LangMessage.tool_result(made_up, "12:00"),
    ]
    assert OllamaProvider().encode(request(messages, [])).body["messages"] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": gemini.id,
                    "function": {"name": "get_weather", "arguments": {"city": "Oslo"}},
                },
                {"id": claude.id, "function": {"name": "get_time", "arguments": {}}},
                {"function": {"name": "get_time", "arguments": {"zone": "CET"}}},
            ],
        },
        {"role": "tool", "tool_name": "get_weather", "tool_call_id": gemini.id, "content": "4C"},
        {
            "role": "tool",
            "tool_name": "get_time",
            "tool_call_id": claude.id,
            "content": '{"error":"denied","error_type":"Denied"}',
        },
        {"role": "tool", "tool_name": "get_time", "content": "12:00"},
    ]


def test_a_result_with_no_known_tool_name_sends_no_null_name() -> None:
    orphan = LangMessage("tool", [TextPart("4C")], tool_call_id="call_9")
    body = OllamaProvider().encode(request([orphan], [])).body
    assert body["messages"] == [{"role": "tool", "tool_call_id": "call_9", "content": "4C"}]


def test_thinking_is_replayed_locally_but_not_to_ollama_com() -> None:
    turn = LangMessage("assistant", [ThinkingPart("Plan."), TextPart("Done.")])
    local = OllamaProvider().encode(request([turn], [])).body["messages"]
    assert local == [{"role": "assistant", "content": "Done.", "thinking": "Plan."}]
    cloud = OllamaProvider(base_url="https://ollama.com", api_key="k")
    assert cloud.encode(request([turn], [])).body["messages"] == [
        {"role": "assistant", "content": "Done."}
    ]


def test_generation_options_merge_with_extra_body_options_and_stop_list() -> None:
    body = (
        OllamaProvider()
        .encode(
            request(
                [],
                [],
                top_p=0.5,
                stop=("END", "STOP"),
                extra_body={"options": {"num_ctx": 4096}, "keep_alive": 0},
            )
        )
        .body
    )
    assert body == {
        "model": "qwen3",
        "messages": [],
        "stream": True,
        "options": {"top_p": 0.5, "stop": ["END", "STOP"], "num_ctx": 4096},
        "keep_alive": 0,
    }


@pytest.mark.parametrize(
    ("status", "body", "cls", "message"),
    [
        (400, b'{"error":"invalid options"}', errors.BadRequestError, "invalid options"),
        (403, b'{"error":"forbidden"}', errors.PermissionDeniedError, "forbidden"),
        (
            500,
            b'{"error":"model requires more system memory (9.5 GiB) than is available"}',
            errors.ServerError,
            "model requires more system memory (9.5 GiB) than is available",
        ),
        (
            503,
            b'{"error":"server busy, please try again.  maximum pending requests exceeded"}',
            errors.OverloadedError,
            "server busy, please try again.  maximum pending requests exceeded",
        ),
    ],
)
def test_more_statuses_map_to_error_classes(
    status: int, body: bytes, cls: type[errors.ProviderError], message: str
) -> None:
    error = http_error(status, body)
    assert (type(error), error.message, error.status_code, error.retry_after) == (
        cls,
        message,
        status,
        None,
    )


@pytest.mark.parametrize(
    ("model", "thinking", "think"),
    [
        ("gpt-oss:20b", True, "medium"),
        ("gpt-oss:120b-cloud", 1024, "low"),
        ("gpt-oss:20b", 4096, "medium"),
        ("library/gpt-oss:20b", 8192, "medium"),
        ("gpt-oss:20b", 8193, "high"),
        ("gpt-oss:20b", "high", "high"),
        ("qwen3", 4096, True),
        ("qwen3", "low", "low"),
    ],
)
def test_gpt_oss_gets_levels_because_it_ignores_booleans(
    model: str, thinking: Any, think: Any
) -> None:
    call = ProviderRequest(model, [], [], merge_options({"thinking": thinking}), True)
    assert OllamaProvider().encode(call).body["think"] == think


@pytest.mark.parametrize("thinking", [False, 0])
def test_turning_gpt_oss_reasoning_off_is_a_config_error(thinking: Any) -> None:
    call = ProviderRequest("gpt-oss:20b", [], [], merge_options({"thinking": thinking}), True)
    with pytest.raises(errors.ConfigError, match="GPT-OSS on Ollama cannot turn reasoning off"):
        OllamaProvider().encode(call)
