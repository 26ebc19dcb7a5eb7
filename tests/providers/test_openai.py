"""Encoding OpenAI Chat Completions requests: exact URLs, headers and bodies per server profile."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from aiwrapper import _errors as errors
from aiwrapper._conversation._messages import (
    LangMessage,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper.providers.openai import (
    COMPATIBLE_PROFILE,
    OPENAI_PROFILE,
    PRESETS,
    OpenAIProfile,
    OpenAIProvider,
    profile_for_base_url,
)
from aiwrapper.providers.openai._encode import wire_call_id
from aiwrapper.providers.openai._profiles import thinking_fields

WEATHER_PARAMS = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


class FakeTool:
    """Stands in for aiwrapper._tools.Tool: a name and a fixed OpenAI declaration."""

    def __init__(self, name: str, *, strict: bool | None = False) -> None:
        self.name = name
        self.strict = strict  # None: the Tool decides, and here renders strict (lossless)
        self.dialects: list[str] = []

    def schema_for(self, dialect: str) -> dict[str, Any]:
        self.dialects.append(dialect)
        function: dict[str, Any] = {
            "name": self.name,
            "description": f"The {self.name} tool.",
            "parameters": WEATHER_PARAMS,
        }
        if self.strict is not False:
            function["strict"] = True
        return {"type": "function", "function": function}


def declaration(name: str, *, strict: bool = False) -> dict[str, Any]:
    return FakeTool(name, strict=strict).schema_for("openai")


def preset(name: str, **kwargs: Any) -> OpenAIProvider:
    base_url, _, profile = PRESETS[name]
    return OpenAIProvider(api_key=kwargs.pop("api_key", "k"), base_url=base_url, profile=profile)


def request(
    messages: Sequence[LangMessage],
    tools: Sequence[FakeTool] = (),
    *,
    stream: bool = True,
    model: str = "gpt-4o-mini",
    **options: Any,
) -> ProviderRequest:
    return ProviderRequest(model, messages, tools, LangOptions(**options), stream)  # type: ignore[arg-type]


def call(call_id: str, name: str, arguments: dict[str, Any], raw: str = "") -> FunctionCall:
    return FunctionCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw)


def test_first_request_with_tools_and_options() -> None:
    prov = OpenAIProvider(api_key="sk-test", organization="org-1", project="proj-1")
    weather = FakeTool("get_weather")
    http = prov.encode(
        request(
            [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Weather?")],
            [weather, FakeTool("get_time")],
            temperature=0.2,
            top_p=0.9,
            max_tokens=256,
            stop=["END"],
            function_call="auto",
            parallel_tool_calls=True,
            thinking="high",
            extra_body={"seed": 7},
            extra_headers={"X-Trace": "t1"},
        )
    )
    assert http.url == "https://api.openai.com/v1/chat/completions"
    assert http.stream is True
    assert weather.dialects == ["openai"]
    assert http.headers == {
        "Content-Type": "application/json",
        "Authorization": "Bearer sk-test",
        "OpenAI-Organization": "org-1",
        "OpenAI-Project": "proj-1",
        "X-Trace": "t1",
    }
    assert http.body == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
        ],
        "tools": [declaration("get_weather"), declaration("get_time")],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.2,
        "top_p": 0.9,
        "max_completion_tokens": 256,
        "stop": ["END"],
        "reasoning_effort": "high",
        "seed": 7,
        "prompt_cache_key": "aiw-30a6a1f90aacb4fb88706d89",  # model, tools, first messages
    }


def test_no_tools_no_key_not_streamed_is_a_minimal_body() -> None:
    prov = OpenAIProvider(
        api_key=None, base_url="http://localhost:8080/v1/", profile=COMPATIBLE_PROFILE
    )
    http = prov.encode(
        request(
            [LangMessage.text("user", "Hi")], stream=False, function_call="required", max_tokens=5
        )
    )
    assert http.url == "http://localhost:8080/v1/chat/completions"
    assert http.headers == {"Content-Type": "application/json"}
    assert http.stream is False
    assert http.body == {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "Hi"}],
        "max_tokens": 5,
    }


def test_second_request_replays_the_tool_call_turn_and_results() -> None:
    oslo = call("call_a1", "get_weather", {"city": "Oslo"}, raw='{"city": "Oslo"}')
    rome = call("call_b2", "get_weather", {"city": "Rome"})
    foreign = ProviderState("anthropic", {"signature": "sig"})
    messages = [
        LangMessage.text("user", "Weather in Oslo and Rome?"),
        LangMessage(
            "assistant",
            [
                ThinkingPart("Two cities.", foreign),  # another provider's reasoning: dropped
                OpaquePart(ProviderState("anthropic", {"type": "redacted_thinking"}), "thinking"),
                TextPart("Checking."),
                ToolCallPart(oslo),
                ToolCallPart(rome),
            ],
        ),
        LangMessage.tool_result(oslo, '{"temp_c":4}'),
        LangMessage.tool_result(rome, "city not found", is_error=True, error_type="LookupError"),
    ]
    body = OpenAIProvider(api_key="k").encode(request(messages, [FakeTool("get_weather")])).body
    assert body["messages"] == [
        {"role": "user", "content": "Weather in Oslo and Rome?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_a1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                },
                {
                    "id": "call_b2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_a1", "content": '{"temp_c":4}'},
        {
            "role": "tool",
            "tool_call_id": "call_b2",
            "content": '{"error":"city not found","error_type":"LookupError"}',
        },
    ]
    assert "tool_choice" not in body
    assert "parallel_tool_calls" not in body


def test_assistant_turn_with_only_calls_has_null_content_and_plain_turn_has_text() -> None:
    messages = [
        LangMessage("assistant", [ToolCallPart(call("call_1", "f", {}))]),
        LangMessage("assistant", []),
    ]
    body = OpenAIProvider(api_key="k").encode(request(messages)).body
    assert body["messages"][0]["content"] is None
    assert body["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert body["messages"][1] == {"role": "assistant", "content": ""}


def test_strict_chosen_automatically_leaves_parallel_calls_on() -> None:
    body = OpenAIProvider(api_key="k").encode(request([], [FakeTool("a", strict=None)])).body
    assert body["tools"][0]["function"]["strict"] is True
    assert "parallel_tool_calls" not in body


def test_strict_tool_sends_parallel_tool_calls_false_unless_set() -> None:
    prov = OpenAIProvider(api_key="k")
    msgs = [LangMessage.text("user", "x")]
    body = prov.encode(request(msgs, [FakeTool("a", strict=True), FakeTool("b")])).body
    assert body["tools"] == [declaration("a", strict=True), declaration("b")]
    assert body["parallel_tool_calls"] is False
    explicit = prov.encode(request(msgs, [FakeTool("a", strict=True)], parallel_tool_calls=True))
    assert explicit.body["parallel_tool_calls"] is True


@pytest.mark.parametrize(
    ("function_call", "wire"),
    [
        ("none", "none"),
        ("required", "required"),
        ("get_weather", {"type": "function", "function": {"name": "get_weather"}}),
        ({"name": "get_weather"}, {"type": "function", "function": {"name": "get_weather"}}),
    ],
)
def test_tool_choice_mapping(function_call: Any, wire: Any) -> None:
    prov = OpenAIProvider(api_key="k")
    body = prov.encode(
        request(
            [LangMessage.text("user", "x")], [FakeTool("get_weather")], function_call=function_call
        )
    ).body
    assert body["tool_choice"] == wire


def test_deepseek_echoes_reasoning_content_on_tool_call_turns_only() -> None:
    lookup = call("call_00_kT2x", "get_weather", {"city": "Oslo"})
    messages = [
        LangMessage.text("user", "Hi"),
        LangMessage("assistant", [ThinkingPart("Greet."), TextPart("Hello!")]),
        LangMessage.text("user", "Weather in Oslo?"),
        LangMessage(
            "assistant",
            [ThinkingPart("The user wants"), ThinkingPart(" weather."), ToolCallPart(lookup)],
        ),
        LangMessage.tool_result(lookup, "4C"),
    ]
    http = preset("deepseek").encode(
        request(
            messages,
            [FakeTool("get_weather")],
            model="deepseek-chat",
            thinking=True,
            max_tokens=100,
        )
    )
    assert http.url == "https://api.deepseek.com/chat/completions"
    assert http.body == {
        "model": "deepseek-chat",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_00_kT2x",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                    }
                ],
                "reasoning_content": "The user wants weather.",
            },
            {"role": "tool", "tool_call_id": "call_00_kT2x", "content": "4C"},
        ],
        "tools": [declaration("get_weather")],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 100,
        "thinking": {"type": "enabled"},
    }


def test_mistral_maps_foreign_ids_to_nine_alphanumerics_consistently() -> None:
    foreign = call("toolu_01A09q90qw90lq917835lq9", "get_weather", {"city": "Oslo"})
    native = call("D681PevKs", "get_weather", {"city": "Rome"})
    messages = [
        LangMessage("assistant", [ToolCallPart(foreign), ToolCallPart(native)]),
        LangMessage.tool_result(foreign, "4C"),
        LangMessage.tool_result(native, "19C"),
    ]
    body = (
        preset("mistral")
        .encode(request(messages, [FakeTool("get_weather")], model="mistral-large-latest"))
        .body
    )
    ids = [c["id"] for c in body["messages"][0]["tool_calls"]]
    assert ids == ["l4LUGq9qS", "D681PevKs"]
    assert [m["tool_call_id"] for m in body["messages"][1:]] == ids
    assert "stream_options" not in body  # Mistral reports usage unasked


def test_openai_remaps_ids_it_would_reject() -> None:
    gemini_id = "function-call-8f2e6a1c-3b4d-4e5f-a6b7-c8d9e0f1a2b3"
    assert wire_call_id(OPENAI_PROFILE, gemini_id) == "call_QlPEdeQUeAQpPODwLw4dfqoi"
    assert wire_call_id(OPENAI_PROFILE, "call_abc-DEF_1") == "call_abc-DEF_1"
    assert wire_call_id(OPENAI_PROFILE, "x" * 40) == "x" * 40
    assert wire_call_id(OPENAI_PROFILE, "x" * 41) == "call_w2LCGZi5CRZ7rRl13Il4iIzF"
    # At most 40 of [A-Za-z0-9_-] (OpenAI and Anthropic both accept it): every compatible
    # server's default.
    assert wire_call_id(COMPATIBLE_PROFILE, gemini_id) == "call_QlPEdeQUeAQpPODwLw4dfqoi"
    verbatim = OpenAIProfile("custom", tool_call_id_style=None)
    assert wire_call_id(verbatim, gemini_id) == gemini_id


def test_ollama_v1_omits_tools_for_none_and_refuses_what_it_cannot_enforce() -> None:
    prov = preset("ollama", api_key=None)
    msgs = [LangMessage.text("user", "x")]
    tools = [FakeTool("get_weather"), FakeTool("get_time")]
    auto = prov.encode(request(msgs, tools, model="qwen3", function_call="auto"))
    assert auto.url == "http://localhost:11434/v1/chat/completions"
    assert auto.headers == {"Content-Type": "application/json"}
    assert auto.body == {
        "model": "qwen3",
        "messages": [{"role": "user", "content": "x"}],
        "tools": [declaration("get_weather"), declaration("get_time")],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    none = prov.encode(request(msgs, tools, model="qwen3", function_call="none")).body
    assert "tools" not in none
    # Ollama /v1 ignores tool_choice (a forced call comes back as text): refuse, never downgrade.
    for forced in ("required", "get_time", {"name": "get_time"}):
        with pytest.raises(errors.ConfigError, match="ollama ignores tool_choice"):
            prov.encode(request(msgs, tools, model="qwen3", function_call=forced))
    with pytest.raises(errors.ConfigError, match="parallel_tool_calls"):
        prov.encode(request(msgs, tools, model="qwen3", parallel_tool_calls=False))
    # A strict tool's implied parallel_tool_calls=false is not the user's: nothing is sent.
    strict = prov.encode(request(msgs, [FakeTool("a", strict=True)], model="qwen3")).body
    assert "parallel_tool_calls" not in strict


def test_llamacpp_named_choice_becomes_required_with_only_that_tool() -> None:
    body = (
        preset("llamacpp")
        .encode(
            request(
                [LangMessage.text("user", "x")], [FakeTool("a"), FakeTool("b")], function_call="b"
            )
        )
        .body
    )
    assert body["tools"] == [declaration("b")]
    assert body["tool_choice"] == "required"


def test_openrouter_replays_reasoning_details_and_sends_a_token_budget() -> None:
    detail = {"type": "reasoning.text", "text": "Need weather.", "signature": "c2ln", "index": 0}
    lookup = call("toolu_01", "get_weather", {"city": "Oslo"})
    assistant = LangMessage(
        "assistant",
        [
            ThinkingPart("Need weather."),
            ToolCallPart(lookup),
            OpaquePart(ProviderState("openrouter", {"reasoning_details": [detail]}), "thinking"),
        ],
    )
    body = (
        preset("openrouter")
        .encode(
            request(
                [LangMessage.text("user", "x"), assistant], [FakeTool("get_weather")], thinking=4000
            )
        )
        .body
    )
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
        "reasoning_details": [detail],
    }
    assert body["reasoning"] == {"max_tokens": 4000}
    # The same turn sent to another server loses OpenRouter's opaque state.
    other = preset("groq").encode(request([assistant])).body
    assert "reasoning_details" not in other["messages"][0]


def test_gemini_compat_extra_content_is_replayed_on_its_call() -> None:
    signature = {"google": {"thought_signature": "Q2lR"}}
    lookup = call("function-call-1", "get_weather", {"city": "Oslo"})
    state = ProviderState("openai-compatible", {"extra_content": signature})
    prov = OpenAIProvider(
        api_key="k",
        base_url="https://generativelanguage.googleapis.com/v1beta/openai/",
        profile=COMPATIBLE_PROFILE,
    )
    body = prov.encode(request([LangMessage("assistant", [ToolCallPart(lookup, state)])])).body
    assert body["messages"][0]["tool_calls"][0] == {
        "id": "function-call-1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
        "extra_content": signature,
    }


@pytest.mark.parametrize(
    ("thinking", "style", "fields"),
    [
        (True, "openai", {"reasoning_effort": "medium"}),
        ("low", "openai", {"reasoning_effort": "low"}),
        (1024, "openai", {"reasoning_effort": "low"}),
        (4096, "openai", {"reasoning_effort": "medium"}),
        (8192, "openai", {"reasoning_effort": "medium"}),
        (20000, "openai", {"reasoning_effort": "high"}),
        (False, "openai", {}),
        (None, "openai", {}),
        (0, "openai", {}),
        (True, "openrouter", {"reasoning": {"effort": "medium"}}),
        ("high", "openrouter", {"reasoning": {"effort": "high"}}),
        (2048, "openrouter", {"reasoning": {"max_tokens": 2048}}),
        ("high", "deepseek", {"thinking": {"type": "enabled"}}),
        (True, "mistral", {}),
    ],
)
def test_thinking_fields_per_server(thinking: Any, style: str, fields: dict[str, Any]) -> None:
    profile = OPENAI_PROFILE if style == "openai" else PRESETS[style][2]
    assert thinking_fields(profile, thinking) == fields


def test_presets_and_profiles() -> None:
    assert {name: (url, env) for name, (url, env, _) in PRESETS.items()} == {
        "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        "deepseek": ("https://api.deepseek.com", "DEEPSEEK_API_KEY"),
        "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        "together": ("https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        "xai": ("https://api.x.ai/v1", "XAI_API_KEY"),
        "vllm": ("http://localhost:8000/v1", None),
        "llamacpp": ("http://localhost:8080/v1", None),
        "lmstudio": ("http://localhost:1234/v1", None),
        "ollama": ("http://localhost:11434/v1", None),
    }
    assert all(profile.name == name for name, (_, _, profile) in PRESETS.items())
    assert preset("groq").name == "groq"
    assert OpenAIProvider(api_key="k").name == "openai"
    assert OPENAI_PROFILE.max_tokens_field == "max_completion_tokens"
    assert COMPATIBLE_PROFILE.name == "openai-compatible"


@pytest.mark.parametrize(
    ("base_url", "name"),
    [
        ("https://api.openai.com/v1/", "openai"),
        ("https://api.mistral.ai/v1", "mistral"),
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("http://localhost:11434/v1", "openai-compatible"),
        ("https://example.com/v1", "openai-compatible"),
    ],
)
def test_profile_for_base_url_recognizes_hosted_services_only(base_url: str, name: str) -> None:
    assert profile_for_base_url(base_url).name == name


GEMINI_ID = "function-call-8f2e6a1c-3b4d-4e5f-a6b7-c8d9e0f1a2b3"  # 50 chars: too long for OpenAI
ANTHROPIC_ID = "toolu_01A09q90qw90lq917835lq9"
SYNTHETIC_ID = "call_5f0c8e2a9b7d4c1e8f6a3b2d"


def foreign_history() -> list[LangMessage]:
    """A conversation whose calls were made by Gemini, Anthropic and an id-less server."""
    gemini = FunctionCall(GEMINI_ID, "get_weather", {"city": "Oslo"}, provider="gemini")
    claude = FunctionCall(ANTHROPIC_ID, "get_weather", {"city": "Rome"}, provider="anthropic")
    made_up = FunctionCall(
        SYNTHETIC_ID, "get_time", {}, provider="ollama", synthetic_id=True, raw_arguments="{}"
    )
    return [
        LangMessage.text("user", "Weather in Oslo and Rome, and the time?"),
        LangMessage("assistant", [ToolCallPart(gemini), ToolCallPart(claude)]),
        LangMessage.tool_result(gemini, "4C"),
        LangMessage.tool_result(claude, "no data", is_error=True, error_type="LookupError"),
        LangMessage("assistant", [TextPart("And the time:"), ToolCallPart(made_up)]),
        LangMessage.tool_result(made_up, "12:00"),
    ]


def ids_sent(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls", ())]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return calls, results


def test_foreign_ids_replayed_to_openai_fit_its_rule_and_pair_with_their_results() -> None:
    body = OpenAIProvider(api_key="k").encode(request(foreign_history())).body
    calls, results = ids_sent(body)
    assert calls == ["call_QlPEdeQUeAQpPODwLw4dfqoi", ANTHROPIC_ID, SYNTHETIC_ID]
    assert results == calls
    assert body["messages"][1:4] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_QlPEdeQUeAQpPODwLw4dfqoi",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                },
                {
                    "id": ANTHROPIC_ID,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_QlPEdeQUeAQpPODwLw4dfqoi", "content": "4C"},
        {
            "role": "tool",
            "tool_call_id": ANTHROPIC_ID,
            "content": '{"error":"no data","error_type":"LookupError"}',
        },
    ]


def test_foreign_ids_replayed_to_mistral_are_nine_alphanumerics_for_call_and_result() -> None:
    body = preset("mistral").encode(request(foreign_history(), model="mistral-large")).body
    calls, results = ids_sent(body)
    assert calls == ["QlPEdeQUe", "l4LUGq9qS", "ClSYnC7d6"]
    assert results == calls


def test_ids_the_server_issued_go_back_verbatim_even_outside_its_id_rule() -> None:
    # Gemini's OpenAI-compatible endpoint reached through Lang.openai(base_url=...): its own
    # function-call-<uuid> ids must come back unchanged, with their tool results.
    own = FunctionCall(GEMINI_ID, "get_weather", {"city": "Oslo"}, provider="openai")
    messages = [LangMessage("assistant", [ToolCallPart(own)]), LangMessage.tool_result(own, "4C")]
    body = OpenAIProvider(api_key="k").encode(request(messages)).body
    assert ids_sent(body) == ([GEMINI_ID], [GEMINI_ID])


def test_a_tool_result_without_its_call_id_is_a_config_error() -> None:
    orphan = LangMessage("tool", [TextPart("4C")], name="get_weather")
    with pytest.raises(errors.ConfigError, match="tool_call_id"):
        OpenAIProvider(api_key="k").encode(request([orphan]))


def test_a_result_whose_call_is_not_in_the_history_still_follows_the_id_rule() -> None:
    result = LangMessage("tool", [TextPart("4C")], tool_call_id=GEMINI_ID)
    body = OpenAIProvider(api_key="k").encode(request([result])).body
    assert body["messages"] == [
        {"role": "tool", "tool_call_id": "call_QlPEdeQUeAQpPODwLw4dfqoi", "content": "4C"}
    ]


def test_deepseek_tool_call_turn_without_reasoning_sends_an_empty_reasoning_content() -> None:
    # A turn another provider made (its signed thinking is dropped) still needs the field in
    # thinking mode, else 400 "Missing `reasoning_content` field".
    lookup = FunctionCall(ANTHROPIC_ID, "get_weather", {"city": "Oslo"}, provider="anthropic")
    signed = ThinkingPart("Need Oslo.", ProviderState("anthropic", {"signature": "c2ln"}))
    messages = [
        LangMessage("assistant", [signed, ToolCallPart(lookup)]),
        LangMessage.tool_result(lookup, "4C"),
        LangMessage("assistant", [TextPart("It is 4C.")]),
    ]
    body = preset("deepseek").encode(request(messages, model="deepseek-reasoner")).body
    assert body["messages"] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": ANTHROPIC_ID,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                }
            ],
            "reasoning_content": "",
        },
        {"role": "tool", "tool_call_id": ANTHROPIC_ID, "content": "4C"},
        {"role": "assistant", "content": "It is 4C."},
    ]


def test_servers_without_reasoning_echo_never_get_reasoning_fields() -> None:
    lookup = FunctionCall("call_1", "f", {})
    turn = LangMessage("assistant", [ThinkingPart("Plan."), ToolCallPart(lookup)])
    for prov in (OpenAIProvider(api_key="k"), preset("groq"), preset("openrouter")):
        assert prov.encode(request([turn])).body["messages"][0] == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    vllm = preset("vllm").encode(request([turn])).body["messages"][0]
    assert vllm["reasoning"] == "Plan."


@pytest.mark.parametrize(
    ("server", "field"),
    [
        ("openai", "max_completion_tokens"),
        ("groq", "max_tokens"),
        ("deepseek", "max_tokens"),
        ("mistral", "max_tokens"),
        ("ollama", "max_tokens"),
    ],
)
@pytest.mark.parametrize(("stop", "wire"), [("END", "END"), (("A", "B"), ["A", "B"])])
def test_output_cap_field_and_stop_per_server(
    server: str, field: str, stop: Any, wire: Any
) -> None:
    prov = OpenAIProvider(api_key="k") if server == "openai" else preset(server)
    body = prov.encode(request([], stream=False, max_tokens=64, stop=stop, cache=False)).body
    assert body == {"model": "gpt-4o-mini", "messages": [], field: 64, "stop": wire}


def test_strict_tools_with_an_explicit_parallel_choice_keep_it() -> None:
    prov = OpenAIProvider(api_key="k")
    tools = [FakeTool("a", strict=True)]
    body = prov.encode(request([], tools, parallel_tool_calls=False, function_call="a")).body
    assert (body["parallel_tool_calls"], body["tool_choice"]) == (
        False,
        {"type": "function", "function": {"name": "a"}},
    )


def test_assistant_turn_with_text_between_calls_keeps_text_and_every_call() -> None:
    first, second = FunctionCall("call_1", "f", {"a": 1}), FunctionCall("call_2", "g", {})
    turn = LangMessage(
        "assistant",
        [TextPart("One, "), ToolCallPart(first), TextPart("two."), ToolCallPart(second)],
    )
    out = OpenAIProvider(api_key="k").encode(request([turn])).body["messages"][0]
    assert out["content"] == "One, two."
    assert [c["id"] for c in out["tool_calls"]] == ["call_1", "call_2"]


def test_thinking_only_assistant_turn_has_empty_string_content() -> None:
    turn = LangMessage("assistant", [ThinkingPart("Hmm.")])
    body = preset("deepseek").encode(request([turn])).body
    assert body["messages"] == [{"role": "assistant", "content": ""}]
