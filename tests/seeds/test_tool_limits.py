"""Seed details on every wire: max_tool_calls, parameter names, native tools, orphan results."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper import ConfigError, Lang, tool

from .wires import WIRES, Body, recording_client

pytestmark = pytest.mark.anyio
NAMES = sorted(WIRES)
RAN: list[str] = []


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    RAN.append(city)
    return f"sunny in {city}"


@pytest.fixture(autouse=True)
def fresh_log() -> None:
    RAN.clear()


THREE_CALLS = [
    ("call_1", "get_weather", '{"city": "Oslo"}'),
    ("call_2", "get_weather", '{"city": "Rome"}'),
    ("call_3", "get_weather", '{"city": "Paris"}'),
]


@pytest.mark.parametrize("name", NAMES)
async def test_calls_past_max_tool_calls_are_not_run_and_the_model_must_answer(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    answers = [wire.calls(THREE_CALLS, False, "m"), wire.text("Two of three.", "m")]
    async with recording_client(wire, answers, sent) as client:
        result = await wire.make(client).ask("Weather?", functions=[get_weather], max_tool_calls=2)
    assert sorted(RAN) == ["Oslo", "Rome"]  # run concurrently: any order
    assert [c.status for c in result.function_calls] == ["done", "done", "skipped"]
    results = wire.results(sent[1])
    assert "sunny in Oslo" in results[0]
    assert "sunny in Rome" in results[1]
    assert "limit of 2 tool calls for this run was reached" in results[2]
    assert [wire.chose_none(body) for body in sent] == [False, True]
    assert result.answer == "Two of three."


async def test_the_cap_counts_calls_over_the_whole_run_and_then_forbids_calls() -> None:
    lang = Lang.scripted(
        [
            {"function_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
            {
                "function_calls": [
                    {"name": "get_weather", "arguments": {"city": "Rome"}},
                    {"name": "get_weather", "arguments": {"city": "Bern"}},
                ]
            },
            "Done.",
        ]
    )
    result = await lang.ask("Weather?", functions=[get_weather], max_tool_calls=3)
    assert sorted(RAN) == ["Bern", "Oslo", "Rome"]
    assert [r.options.function_call for r in lang.requests] == [None, None, "none"]
    assert result.answer == "Done."


async def test_a_forced_choice_gives_way_to_none_once_the_cap_is_reached() -> None:
    lang = Lang.scripted(
        [{"function_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, "Done."]
    )
    await lang.ask("Weather?", functions=[get_weather], function_call="required", max_tool_calls=1)
    assert [r.options.function_call for r in lang.requests] == ["required", "none"]


def _no_name_keyword(schema: Any) -> bool:
    """True when no parameter schema below ``properties`` carries a ``name`` keyword."""
    if isinstance(schema, list):
        return all(_no_name_keyword(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    for key, value in schema.items():
        if key == "properties" and any("name" in entry for entry in value.values()):
            return False
        if not _no_name_keyword(value):
            return False
    return True


SIMPLE = {
    "name": "get_weather",
    "description": "Weather in a city.",
    "parameters": {
        "city": {"name": "city", "type": "string", "description": "City.", "required": True}
    },
}


@pytest.mark.parametrize("name", NAMES)
async def test_a_simple_parameter_s_name_key_is_not_sent_on_any_wire(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [wire.text("Hi.", "m")], sent) as client:
        await wire.make(client).ask("Hi", functions=[SIMPLE], function_handler=lambda c: "ok")
    (declared,) = wire.tools(sent[0])
    assert "City." in json.dumps(declared)
    assert _no_name_keyword(declared), declared
    assert "name: city" not in json.dumps(declared)  # nor folded into the description


NATIVE = {
    "openai": {"type": "web_search"},
    "anthropic": {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
    "gemini": {"googleSearch": {}},
}


@pytest.mark.parametrize("name", sorted(NATIVE))
async def test_native_tools_are_sent_beside_the_declared_functions(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    answers = [wire.text("Hi.", "m"), wire.text("Hi.", "m")]
    async with recording_client(wire, answers, sent) as client:
        lang = wire.make(client)
        # cache=False: no Anthropic breakpoint on the last tool (test_anthropic_cache.py)
        await lang.ask("Hi", functions=[get_weather], native_tools=[NATIVE[name]], cache=False)
        await lang.ask("Hi", native_tools=[NATIVE[name]], cache=False)  # without functions
    names = [json.dumps(entry) for entry in wire.tools(sent[0])]
    assert len(names) == 2
    assert "get_weather" in names[0]
    assert wire.tools(sent[0])[1] == NATIVE[name]
    assert wire.tools(sent[1]) == [NATIVE[name]]


async def test_ollama_has_no_native_tools_and_says_so_before_sending() -> None:
    wire = WIRES["ollama"]
    sent: list[Body] = []
    async with recording_client(wire, [], sent) as client:
        with pytest.raises(ConfigError, match="Ollama's API has no provider-native tools"):
            await wire.make(client).ask("Hi", native_tools=[{"type": "web_search"}])
    assert sent == []


@pytest.mark.parametrize("name", NAMES)
async def test_extra_body_cannot_replace_the_declared_tools(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    native = [{"type": "web_search_20250305", "name": "web_search"}]
    async with recording_client(wire, [], sent) as client:
        with pytest.raises(ConfigError) as info:
            await wire.make(client).ask("Hi", functions=[get_weather], extra_body={"tools": native})
    assert "extra_body cannot replace 'tools'" in str(info.value)
    assert "native_tools" in str(info.value)
    assert sent == []


@pytest.mark.parametrize("name", NAMES)
async def test_extra_body_adds_keys_the_sdk_does_not_set(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [wire.text("Hi.", "m")], sent) as client:
        await wire.make(client).ask("Hi", extra_body={"x_trace": "t1"})
    assert sent[0]["x_trace"] == "t1"


def test_native_tools_must_be_dicts() -> None:
    with pytest.raises(ConfigError, match="native_tools must be a list of dicts"):
        Lang.scripted(["x"], options={"native_tools": ["web_search"]})


@pytest.mark.parametrize("name", NAMES)
async def test_a_tool_result_without_its_call_is_refused_before_sending(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    messages: list[Any] = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "Let me see."},
        {"role": "tool", "tool_call_id": "call_lost", "content": "sunny"},
    ]
    async with recording_client(wire, [], sent) as client:
        with pytest.raises(ConfigError, match="tool result for call 'call_lost' answers no call"):
            await wire.make(client).chat(messages, functions=[get_weather])
    assert sent == []
