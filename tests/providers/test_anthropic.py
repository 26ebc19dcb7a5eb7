"""Anthropic requests: headers, exact bodies, tool_choice, thinking per model, conversations."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper._conversation._messages import (
    LangMessage,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._errors import ConfigError
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.anthropic import AnthropicProvider, wire_id
from aiwrapper.providers.anthropic._models import family_for

WEATHER_SCHEMA = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


class FakeTool:
    """Stands in for aiwrapper._tools.Tool: only name and schema_for are used."""

    name = "get_weather"

    def schema_for(self, dialect: str) -> dict[str, Any]:
        assert dialect == "anthropic"
        return WEATHER_SCHEMA


def own(**data: Any) -> ProviderState:
    return ProviderState("anthropic", data)


def encode(
    messages: list[LangMessage],
    *,
    model: str = "claude-sonnet-4-5",
    tools: bool = False,
    stream: bool = False,
    provider: AnthropicProvider | None = None,
    **options: Any,
) -> dict[str, Any]:
    provider = provider or AnthropicProvider(api_key="sk-ant-test")
    request = ProviderRequest(
        model=model,
        messages=messages,
        tools=[FakeTool()] if tools else [],  # type: ignore[list-item]
        options=merge_options({"cache": False}, options),  # breakpoints: test_anthropic_cache
        stream=stream,
    )
    return provider.encode(request).body


USER = [LangMessage.text("user", "Weather in Oslo?")]
USER_WIRE = [{"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]}]


def test_minimal_request_has_url_headers_and_exact_body() -> None:
    provider = AnthropicProvider(api_key="sk-ant-test", base_url="https://proxy.example/")
    options = merge_options(cache=False)
    request = ProviderRequest("claude-sonnet-4-5", USER, [], options, stream=True)
    call = provider.encode(request)
    assert call.url == "https://proxy.example/v1/messages"
    assert call.stream is True
    assert call.headers == {
        "x-api-key": "sk-ant-test",
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
    }
    assert call.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,  # the model's output limit (aiwrapper._knowledge._modelrules)
        "messages": USER_WIRE,
        "stream": True,
    }


def test_betas_version_extra_headers_and_no_key() -> None:
    provider = AnthropicProvider(
        api_key=None, version="2024-01-01", betas=["a-2025-01-01", "b-2025-02-02"]
    )
    request = ProviderRequest(
        "claude-x", USER, [], merge_options(extra_headers={"x-trace": "1"}), stream=False
    )
    assert provider.encode(request).headers == {
        "anthropic-version": "2024-01-01",
        "content-type": "application/json",
        "anthropic-beta": "a-2025-01-01,b-2025-02-02",
        "x-trace": "1",
    }


def test_system_messages_become_top_level_system_and_options_map() -> None:
    messages = [
        LangMessage.text("system", "Be brief."),
        *USER,
        LangMessage.text("system", "Metric."),
    ]
    body = encode(
        messages,
        model="claude-sonnet-4-20250514",  # 4.0 still takes temperature and top_p together
        tools=True,
        temperature=0.2,
        top_p=0.9,
        max_tokens=300,
        stop="END",
        extra_body={"metadata": {"user_id": "u1"}},
    )
    assert body == {
        "model": "claude-sonnet-4-20250514",
        "max_tokens": 300,
        "system": "Be brief.\n\nMetric.",
        "messages": USER_WIRE,
        "tools": [WEATHER_SCHEMA],
        "temperature": 0.2,
        "top_p": 0.9,
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u1"},
    }


@pytest.mark.parametrize(
    ("function_call", "parallel", "expected"),
    [
        (None, None, None),
        (None, True, None),
        ("auto", None, {"type": "auto"}),
        ("none", None, {"type": "none"}),
        ("required", None, {"type": "any"}),
        ("get_weather", None, {"type": "tool", "name": "get_weather"}),
        ({"name": "get_weather"}, None, {"type": "tool", "name": "get_weather"}),
        (None, False, {"type": "auto", "disable_parallel_tool_use": True}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
    ],
)
def test_tool_choice_mapping(function_call: Any, parallel: Any, expected: Any) -> None:
    body = encode(USER, tools=True, function_call=function_call, parallel_tool_calls=parallel)
    assert body.get("tool_choice") == expected


@pytest.mark.parametrize(
    "options",
    [{"function_call": "auto"}, {"function_call": "none"}, {"parallel_tool_calls": False}],
)
def test_no_tool_choice_without_tools(options: dict[str, Any]) -> None:
    body = encode(USER, **options)
    assert ("tools" in body, "tool_choice" in body) == (False, False)


def test_history_with_tool_blocks_is_sent_without_tools_when_none_are_declared() -> None:
    # The API accepts this since 2025-02-27; no stub declarations are invented.
    done = call("toolu_01A", "get_weather", {"city": "Oslo"})
    done.provider = "anthropic"
    messages = [
        *USER,
        LangMessage("assistant", [ToolCallPart(done)]),
        LangMessage.tool_result(done, "4C"),
        LangMessage.text("assistant", "It is 4C."),
        LangMessage.text("user", "Thanks!"),
    ]
    assert encode(messages) == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64000,  # the model's output limit (aiwrapper._knowledge._modelrules)
        "messages": [
            USER_WIRE[0],
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_01A",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "4C"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is 4C."}]},
            {"role": "user", "content": [{"type": "text", "text": "Thanks!"}]},
        ],
    }


@pytest.mark.parametrize(
    ("model", "form", "sampling"),
    [
        ("claude-3-7-sonnet-20250219", "budget", True),
        ("claude-3-5-haiku-latest", "budget", True),
        ("claude-opus-4-20250514", "budget", True),
        ("claude-sonnet-4-5-20250929", "budget", True),
        ("claude-haiku-4-5", "budget", True),
        ("claude-opus-4-6", "adaptive", True),
        ("anthropic/claude-sonnet-4.6", "adaptive", True),
        ("claude-opus-4-7", "adaptive_only", False),
        ("anthropic.claude-opus-5-v1:0", "adaptive_only", False),
        ("my-finetune", "adaptive", True),
    ],
)
def test_model_families(model: str, form: str, sampling: bool) -> None:
    family = family_for(model)
    assert (family.thinking, family.sampling) == (form, sampling)


@pytest.mark.parametrize(
    ("model", "one_sampler"),
    [
        ("claude-3-7-sonnet-20250219", False),
        ("claude-opus-4-20250514", False),
        ("claude-opus-4-1-20250805", True),
        ("claude-sonnet-4-5-20250929", True),
        ("claude-haiku-4-5", True),
        ("claude-sonnet-4-6", True),
        ("my-finetune", False),  # unknown: sent as given, the API decides
    ],
)
def test_temperature_and_top_p_together_only_where_the_model_takes_both(
    model: str, one_sampler: bool
) -> None:
    assert family_for(model).one_sampler is one_sampler
    if one_sampler:
        with pytest.raises(ConfigError, match="temperature and top_p together"):
            encode(USER, model=model, temperature=0.5, top_p=0.9)
    else:
        body = encode(USER, model=model, temperature=0.5, top_p=0.9)
        assert (body["temperature"], body["top_p"]) == (0.5, 0.9)
    body = encode(USER, model=model, temperature=0.5)
    assert (body["temperature"], "top_p" in body) == (0.5, False)


@pytest.mark.parametrize(
    ("model", "thinking", "fields"),
    [
        # Budget-only generations: enabled + budget_tokens; max_tokens grows by the budget.
        ("claude-sonnet-4-5", True, {"thinking": {"type": "enabled", "budget_tokens": 8192}}),
        ("claude-sonnet-4-5", 2000, {"thinking": {"type": "enabled", "budget_tokens": 2000}}),
        ("claude-sonnet-4-5", "high", {"thinking": {"type": "enabled", "budget_tokens": 24576}}),
        # 4.6: adaptive for True and efforts, budgets still accepted.
        ("claude-opus-4-6", True, {"thinking": {"type": "adaptive"}}),
        (
            "claude-opus-4-6",
            "low",
            {"thinking": {"type": "adaptive"}, "output_config": {"effort": "low"}},
        ),
        ("claude-opus-4-6", 3000, {"thinking": {"type": "enabled", "budget_tokens": 3000}}),
        # 4.7+: adaptive only, summarized display, a budget becomes the nearest effort.
        ("claude-opus-4-7", True, {"thinking": {"type": "adaptive", "display": "summarized"}}),
        (
            "claude-opus-4-7",
            30000,
            {
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": "high"},
            },
        ),
        (
            "claude-opus-4-7",
            1024,
            {
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": "low"},
            },
        ),
        (
            "claude-opus-4-7",
            8192,
            {
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": "medium"},
            },
        ),
        ("claude-sonnet-4-5", "low", {"thinking": {"type": "enabled", "budget_tokens": 1024}}),
    ],
)
def test_thinking_mapping(model: str, thinking: Any, fields: dict[str, Any]) -> None:
    body = encode(USER, model=model, thinking=thinking)
    assert {k: v for k, v in body.items() if k in ("thinking", "output_config")} == fields


@pytest.mark.parametrize(
    ("model", "thinking", "max_tokens"),
    [
        ("claude-sonnet-4-5", None, 64000),
        ("claude-sonnet-4-5", 2000, 64000),
        ("claude-opus-4-6", True, 128000),
        ("claude-opus-4-1", True, 32000),
        ("claude-3-5-haiku-latest", None, 8192),
    ],
)
def test_default_max_tokens_is_the_models_output_limit(
    model: str, thinking: Any, max_tokens: int
) -> None:
    # Thinking counts toward max_tokens, and the output limit is the most the model allows.
    body = encode(USER, model=model, thinking=thinking)
    assert body["max_tokens"] == max_tokens


@pytest.mark.parametrize(
    ("model", "thinking", "max_tokens"),
    [
        ("claude-x", None, 4096),
        ("claude-x", False, 4096),
        ("claude-x", 2000, 4096 + 2000),
        ("claude-x", "medium", 4096 + 8192),
        ("claude-x", True, 4096 + 24576),
    ],
)
def test_default_max_tokens_of_an_unknown_model_reserves_room_for_thinking(
    model: str, thinking: Any, max_tokens: int
) -> None:
    body = encode(USER, model=model, thinking=thinking)
    assert body["max_tokens"] == max_tokens
    assert ("thinking" in body) is bool(thinking)


def test_an_explicit_default_max_tokens_reserves_room_for_thinking_on_known_models() -> None:
    provider = AnthropicProvider(api_key="k", default_max_tokens=4096)
    assert encode(USER, provider=provider, thinking=True)["max_tokens"] == 4096 + 8192
    assert encode(USER, provider=provider, model="claude-opus-4-6")["max_tokens"] == 4096


def test_default_max_tokens_is_configurable() -> None:
    provider = AnthropicProvider(api_key="k", default_max_tokens=1000)
    assert encode(USER, provider=provider)["max_tokens"] == 1000
    assert encode(USER, provider=provider, thinking=1024)["max_tokens"] == 2024


@pytest.mark.parametrize(
    ("thinking", "max_tokens", "budget"),
    [
        (True, 4096, 2048),  # medium (8192) fitted to half of max_tokens
        ("high", 60000, 24576),  # fits as it is
        ("low", 3000, 1024),  # the thinking table's "low" (1024) fits as it is
        ("medium", 3000, 1500),
        (True, 1500, 1024),  # never below the API's floor
    ],
)
def test_a_budget_the_sdk_picked_is_fitted_into_an_explicit_max_tokens(
    thinking: Any, max_tokens: int, budget: int
) -> None:
    body = encode(USER, thinking=thinking, max_tokens=max_tokens)
    assert body["max_tokens"] == max_tokens
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}


def test_max_tokens_too_small_for_any_thinking_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"max_tokens \(1024\) leaves no room"):
        encode(USER, thinking=True, max_tokens=1024)
    # Adaptive thinking has no budget to fit: the model decides within max_tokens.
    body = encode(USER, model="claude-opus-4-6", thinking="high", max_tokens=1024)
    assert (body["max_tokens"], body["thinking"]) == (1024, {"type": "adaptive"})


def test_explicit_max_tokens_must_exceed_the_budget() -> None:
    assert encode(USER, thinking=2000, max_tokens=2001)["max_tokens"] == 2001
    with pytest.raises(ConfigError, match=r"max_tokens \(2000\) must be larger"):
        encode(USER, thinking=2000, max_tokens=2000)
    interleaved = AnthropicProvider(api_key="k", betas=["interleaved-thinking-2025-05-14"])
    assert encode(USER, provider=interleaved, thinking=8000, max_tokens=2000)["max_tokens"] == 2000


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"thinking": 512}, "at least 1024"),
        ({"thinking": "extreme"}, "thinking must be"),
        ({"thinking": True, "function_call": "required"}, "forcing a tool call"),
        ({"thinking": True, "function_call": "get_weather"}, "forcing a tool call"),
        ({"thinking": True, "temperature": 0.5}, "temperature unset or 1"),
        ({"thinking": True, "top_p": 0.5}, "top_p between 0.95 and 1"),
        ({"model": "claude-opus-4-7", "temperature": 0.5}, "does not accept temperature"),
        ({"model": "claude-opus-4-7", "top_p": 0.9}, "does not accept temperature"),
    ],
)
def test_config_errors_before_the_request(options: dict[str, Any], message: str) -> None:
    model = options.pop("model", "claude-sonnet-4-5")
    with pytest.raises(ConfigError, match=message):
        encode(USER, model=model, tools=True, **options)


def test_thinking_allows_auto_tool_choice_temperature_one_and_high_top_p() -> None:
    body = encode(
        USER,
        model="claude-3-7-sonnet-20250219",
        tools=True,
        thinking=True,
        function_call="auto",
        temperature=1,
        top_p=0.95,
    )
    assert (body["tool_choice"], body["temperature"], body["top_p"]) == ({"type": "auto"}, 1, 0.95)


def test_wire_id_keeps_valid_ids_and_cleans_foreign_ones_deterministically() -> None:
    assert wire_id("toolu_01A-b") == "toolu_01A-b"
    assert wire_id("fn.x:0") == "fn_x_0_545a1e9d"  # sha256 prefix: no clash with "fn_x_0"
    assert wire_id("fn_x_0") == "fn_x_0"
    assert wire_id("") == "_e3b0c442"


def call(call_id: str, name: str, arguments: dict[str, Any]) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, arguments=arguments)


def test_assistant_parts_are_encoded_in_order_and_foreign_state_is_dropped() -> None:
    redacted = {"type": "redacted_thinking", "data": "EmwKAhgB"}
    assistant = LangMessage(
        "assistant",
        [
            ThinkingPart("", own(signature="sig-empty")),
            OpaquePart(own(block=redacted), kind="thinking"),
            ThinkingPart("gemini thought", ProviderState("gemini", {"thoughtSignature": "x"})),
            ThinkingPart("unsigned thought"),
            OpaquePart(ProviderState("openai", {"block": {"type": "reasoning"}}), kind="thinking"),
            TextPart(""),
            TextPart("Checking."),
            ToolCallPart(call("toolu_01A", "get_weather", {"city": "Oslo"})),
            ToolCallPart(
                call("fn.x:0", "get_weather", {"city": "Rome"}),
                own(extra={"caller": {"type": "direct"}}),
            ),
        ],
    )
    body = encode([*USER, assistant], thinking=True)
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "", "signature": "sig-empty"},
            redacted,
            {"type": "text", "text": "Checking."},
            {
                "type": "tool_use",
                "id": "toolu_01A",
                "name": "get_weather",
                "input": {"city": "Oslo"},
            },
            {
                "type": "tool_use",
                "id": wire_id("fn.x:0"),
                "name": "get_weather",
                "input": {"city": "Rome"},
                "caller": {"type": "direct"},
            },
        ],
    }


def test_tool_results_form_one_user_message_before_any_text() -> None:
    first = call("toolu_01A", "get_weather", {"city": "Oslo"})
    second = call("fn.x:0", "get_weather", {"city": "Rome"})
    messages = [
        *USER,
        LangMessage("assistant", [ToolCallPart(first), ToolCallPart(second)]),
        LangMessage.text("user", "Prefer Celsius."),  # text sent before the results arrived
        LangMessage.tool_result(first, '{"temp_c": 4}'),
        LangMessage.tool_result(second, "service down", is_error=True, error_type="HTTPError"),
        LangMessage.text("user", "And tomorrow?"),
    ]
    assert encode(messages)["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": '{"temp_c": 4}'},
            {
                "type": "tool_result",
                "tool_use_id": wire_id("fn.x:0"),
                "content": "service down",
                "is_error": True,
            },
            {"type": "text", "text": "Prefer Celsius."},
            {"type": "text", "text": "And tomorrow?"},
        ],
    }


def test_consecutive_same_role_messages_merge_and_empty_ones_vanish() -> None:
    messages = [
        LangMessage.text("user", "One."),
        LangMessage.text("user", "Two."),
        LangMessage("assistant", [TextPart("")]),
        LangMessage.text("user", "Three."),
        LangMessage.text("assistant", "A."),
        LangMessage.text("assistant", "B."),
    ]
    assert encode(messages)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "One."},
                {"type": "text", "text": "Two."},
                {"type": "text", "text": "Three."},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "A."}, {"type": "text", "text": "B."}],
        },
    ]


def test_empty_tool_result_omits_content() -> None:
    done = call("toolu_01A", "get_weather", {})
    messages = [*USER, LangMessage("assistant", [ToolCallPart(done)])]
    body = encode([*messages, LangMessage.tool_result(done, "")])
    assert body["messages"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_01A"}],
    }


def test_thinking_blocks_are_left_out_while_thinking_is_off() -> None:
    assistant = LangMessage(
        "assistant",
        [
            ThinkingPart("why", own(signature="sig")),
            OpaquePart(own(block={"type": "redacted_thinking", "data": "x"}), kind="thinking"),
            OpaquePart(own(block={"type": "server_tool_use", "id": "srvtoolu_1"})),
            TextPart("Answer."),
        ],
    )
    messages = [*USER, assistant, LangMessage.text("user", "More?")]
    assert encode(messages)["messages"][1]["content"] == [
        {"type": "server_tool_use", "id": "srvtoolu_1"},
        {"type": "text", "text": "Answer."},
    ]
    raw_thinking = {"thinking": {"type": "adaptive"}}
    kept = encode(messages, extra_body=raw_thinking)["messages"][1]["content"]
    assert [block["type"] for block in kept] == [
        "thinking",
        "redacted_thinking",
        "server_tool_use",
        "text",
    ]
