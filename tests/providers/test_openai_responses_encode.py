"""Responses API request bodies, asserted exactly and checked against the official SDK's types;
HTTP error bodies mapped to the exception tree."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aiwrapper import _errors as errors
from aiwrapper import tool
from aiwrapper._conversation._messages import (
    LangMessage,
    OpaquePart,
    ProviderState,
    TextPart,
    ToolCallPart,
)
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import LangOptions
from aiwrapper.providers.openai import PRESETS
from aiwrapper.providers.openai_responses import NAME, ResponsesProvider

from .responses_sdk import assert_sdk_accepts

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"sunny in {city}"


@tool
def save(record: dict) -> str:  # type: ignore[type-arg]
    """Save a free-form record."""
    return "saved"


@dataclass
class Weather:
    city: str
    temp_c: int


def body(
    messages: list[LangMessage],
    *,
    model: str = "o3",
    tools: list[Any] | None = None,
    stream: bool = True,
    provider: ResponsesProvider | None = None,
    **options: Any,
) -> dict[str, Any]:
    request = ProviderRequest(
        model=model,
        messages=messages,
        tools=tools or [],
        options=LangOptions(**options),
        stream=stream,
    )
    call = (provider or ResponsesProvider(api_key="sk-test")).encode(request)
    assert call.url == "https://api.openai.com/v1/responses"
    assert call.headers["Authorization"] == "Bearer sk-test"
    assert isinstance(call.body, dict)
    return call.body


def user(text: str) -> LangMessage:
    return LangMessage.text("user", text)


def test_a_first_request_with_every_option_mapped() -> None:
    sent = body(
        [LangMessage.text("system", "Be terse."), user("Weather in Oslo and Rome?")],
        tools=[get_weather],
        function_call="get_weather",
        parallel_tool_calls=False,
        max_tokens=4000,
        thinking="high",
        output_type=Weather,
    )
    assert sent == {
        "model": "o3",
        "instructions": "Be terse.",
        "input": [{"type": "message", "role": "user", "content": "Weather in Oslo and Rome?"}],
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name."}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "strict": True,
            }
        ],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "parallel_tool_calls": False,
        "max_output_tokens": 4000,
        "reasoning": {"effort": "high", "summary": "auto"},
        "text": {
            "format": {
                "type": "json_schema",
                "name": "Weather",
                "schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
                    "required": ["city", "temp_c"],
                    "additionalProperties": False,
                },
                "strict": True,
            }
        },
        "stream": True,
        "stream_options": {"include_obfuscation": False},
        "prompt_cache_key": "aiw-43dc3e540fae0d39fd435b92",  # model, tools, first messages
    }
    assert_sdk_accepts(sent)


def test_strict_is_false_and_explicit_when_the_schema_cannot_be_strict() -> None:
    sent = body([user("Save it")], tools=[save], stream=False)
    (declared,) = sent["tools"]
    assert declared["strict"] is False
    assert declared["parameters"]["properties"]["record"]["type"] == "object"
    assert "stream" not in sent
    assert_sdk_accepts(sent)


@pytest.mark.parametrize(
    ("thinking", "reasoning"),
    [
        (True, {"summary": "auto"}),  # the model's own default effort
        ("low", {"effort": "low", "summary": "auto"}),
        (3000, {"effort": "medium", "summary": "auto"}),  # a budget: the effort covering it
    ],
)
def test_thinking_becomes_reasoning_effort_with_a_summary(
    thinking: bool | int | str, reasoning: dict[str, str]
) -> None:
    assert body([user("Hi")], thinking=thinking)["reasoning"] == reasoning


def test_max_output_tokens_is_at_least_sixteen() -> None:
    assert body([user("Hi")], max_tokens=5)["max_output_tokens"] == 16


def test_stop_is_a_config_error_naming_it() -> None:
    with pytest.raises(errors.ConfigError, match="no stop sequences: leave the stop option"):
        body([user("Hi")], stop=["END"])


def test_a_model_known_not_to_reason_gets_no_reasoning_include() -> None:
    sent = body([user("Hi")], model="gpt-4o", temperature=0.2)
    assert "include" not in sent
    assert sent["temperature"] == 0.2
    assert sent["store"] is False


def test_a_compatible_server_gets_no_include_and_no_obfuscation_switch() -> None:
    base_url, _, profile = PRESETS["vllm"]
    provider = ResponsesProvider(api_key=None, base_url=base_url, profile=profile)
    request = ProviderRequest("openai/gpt-oss-20b", [user("Hi")], [], LangOptions(), True)
    call = provider.encode(request)
    assert call.url == "http://localhost:8000/v1/responses"
    assert "Authorization" not in call.headers
    assert call.body == {
        "model": "openai/gpt-oss-20b",
        "input": [{"type": "message", "role": "user", "content": "Hi"}],
        "store": False,
        "stream": True,
    }
    assert provider.name == "vllm-responses"


def kept_turn(model: str = "o3-2025-04-16") -> LangMessage:
    """The assistant turn of the fixture ``reasoning_calls``, as the assembler keeps it."""
    final = json.loads((FIXTURES / "reasoning_calls.json").read_text())
    calls = [
        FunctionCall(id=i["call_id"], name=i["name"], raw_arguments=i["arguments"])
        for i in final["output"][2:]
    ]
    state = ProviderState(NAME, {"model": model, "items": final["output"]})
    return LangMessage(
        "assistant",
        [
            TextPart("Checking both cities."),
            *(ToolCallPart(c) for c in calls),
            OpaquePart(state, kind="thinking"),
        ],
    )


def results(turn: LangMessage) -> list[LangMessage]:
    return [LangMessage.tool_result(call, f"4 °C in {call.id}") for call in turn.tool_calls]


def test_a_turn_of_the_same_model_is_replayed_as_its_kept_items() -> None:
    turn = kept_turn()
    sent = body([user("Weather?"), turn, *results(turn)])
    kept = json.loads((FIXTURES / "reasoning_calls.json").read_text())["output"]
    assert sent["input"][1:5] == kept  # reasoning, message, both calls: verbatim, in order
    assert sent["input"][5:] == [
        {
            "type": "function_call_output",
            "call_id": "call_Oslo7Qm2",
            "output": "4 °C in call_Oslo7Qm2",
        },
        {
            "type": "function_call_output",
            "call_id": "call_Rome9Xv4",
            "output": "4 °C in call_Rome9Xv4",
        },
    ]
    assert_sdk_accepts(sent)


def test_a_turn_of_another_model_goes_without_ids_or_reasoning() -> None:
    turn = kept_turn()
    sent = body([user("Weather?"), turn, *results(turn)], model="gpt-5")
    assert sent["input"][1:4] == [
        {"type": "message", "role": "assistant", "content": "Checking both cities."},
        {
            "type": "function_call",
            "call_id": "call_Oslo7Qm2",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
        },
        {
            "type": "function_call",
            "call_id": "call_Rome9Xv4",
            "name": "get_weather",
            "arguments": '{"city":"Rome"}',
        },
    ]
    assert "encrypted_content" not in json.dumps(sent["input"])
    assert_sdk_accepts(sent)


def test_a_turn_whose_call_has_no_kept_item_goes_without_ids() -> None:
    turn = kept_turn()
    cut = FunctionCall(id="call_Cut1", name="get_weather", raw_arguments='{"city":"Os')
    turn.parts.insert(3, ToolCallPart(cut))
    sent = body([user("Weather?"), turn, *results(turn)])
    calls = [i for i in sent["input"] if i["type"] == "function_call"]
    assert [c["call_id"] for c in calls] == ["call_Oslo7Qm2", "call_Rome9Xv4", "call_Cut1"]
    assert all("id" not in c for c in calls)
    assert calls[2]["arguments"] == "{}"  # cut-off arguments are replayed as an empty object
    assert not [i for i in sent["input"] if i["type"] == "reasoning"]


def test_a_later_system_message_and_an_error_result() -> None:
    call = FunctionCall(id="toolu_01", name="get_weather", raw_arguments='{"city":"Oslo"}')
    failed = LangMessage.tool_result(call, "no such city", is_error=True, error_type="ValueError")
    messages = [
        user("Weather?"),
        LangMessage("assistant", [ToolCallPart(call)]),
        failed,
        LangMessage.text("system", "Answer in French."),
    ]
    sent = body(messages)
    assert "instructions" not in sent
    assert sent["input"][2:] == [
        {
            "type": "function_call_output",
            "call_id": "toolu_01",
            "output": '{"error":"no such city","error_type":"ValueError"}',
        },
        {"type": "message", "role": "system", "content": "Answer in French."},
    ]
    assert_sdk_accepts(sent)


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("error_400_no_tool_output.json", "No tool output found for function call call_Rome9Xv4."),
        ("error_400_no_tool_call.json", "No tool call found for function call output with call_id"),
        ("error_400_reasoning_missing.json", "provided without its required 'reasoning' item"),
    ],
)
def test_the_pairing_errors_are_bad_requests_with_their_message(fixture: str, message: str) -> None:
    raw = (FIXTURES / fixture).read_bytes()
    error = ResponsesProvider(api_key="k").error(400, raw, {"x-request-id": "req_7"})
    assert isinstance(error, errors.BadRequestError)
    assert message in str(error)
    assert (error.provider, error.status_code, error.request_id) == (NAME, 400, "req_7")
    assert error.body == json.loads(raw)


def test_a_kept_call_whose_arguments_are_no_object_goes_as_the_call_says_its_item_untouched() -> (
    None
):
    turn = kept_turn()
    state = next(p for p in turn.parts if isinstance(p, OpaquePart)).state
    oslo = state.data["items"][2]
    oslo["arguments"] = "[1]"  # as a model might write them: JSON, but not an object
    turn.tool_calls[0].raw_arguments = "[1]"
    sent = body([user("Weather?"), turn, *results(turn)])
    assert sent["input"][3] == {**oslo, "arguments": "{}"}
    assert sent["input"][4] is state.data["items"][3]  # kept as it is: not copied
    assert oslo["arguments"] == "[1]"
