"""On every wire: the model that answered (``result.model``) and turns cut at the token limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiwrapper import Lang, tool

from .wires import WIRES, Body, recording_client

pytestmark = pytest.mark.anyio
NAMES = sorted(WIRES)
FIXTURES = Path(__file__).parent.parent / "fixtures"


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    return f"sunny in {city}"


@pytest.mark.parametrize(
    ("name", "fixture", "model"),
    [
        ("openai", "openai/text.sse", "gpt-4o-mini-2024-07-18"),
        ("anthropic", "anthropic/text.sse", "claude-sonnet-4-5-20250929"),
        ("gemini", "gemini/text.sse", "gemini-2.5-flash"),
        ("ollama", "ollama/text.ndjson", "qwen3"),
        ("openai-responses", "openai_responses/text.sse", "o3-2025-04-16"),
    ],
)
async def test_result_model_is_the_model_the_recorded_answer_names(
    name: str, fixture: str, model: str
) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [(FIXTURES / fixture).read_bytes()], sent) as client:
        result = await wire.make(client).ask("Hi")
    assert result.model == model
    assert sent[0]["model" if name != "gemini" else "contents"]  # the request went out


@pytest.mark.parametrize("name", NAMES)
async def test_result_model_follows_the_latest_turn(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    call = [("call_1", "get_weather", '{"city": "Oslo"}')]
    answers = [wire.calls(call, False, "model-a-0101"), wire.text("Sunny.", "model-b-0202")]
    seen: list[str | None] = []
    async with recording_client(wire, answers, sent) as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[get_weather], on_result=lambda r: seen.append(r.model)
        )
    assert "model-a-0101" in seen
    assert result.model == "model-b-0202"


async def test_result_model_falls_back_to_the_model_asked_for() -> None:
    result = await Lang.scripted(["Hi."]).ask("Hi")
    assert result.model == Lang.scripted(["x"]).model.model


CUT_CALL = [("call_1", "get_weather", "{}")]  # the required city never came


@pytest.mark.parametrize("name", NAMES)
async def test_a_turn_of_calls_cut_at_the_limit_keeps_the_truncation(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [wire.calls(CUT_CALL, True, "m")], sent) as client:
        result = await wire.make(client).ask(
            "Weather?", functions=[get_weather], auto_execute=False
        )
    assert result.truncated is True
    assert result.finish_reason == "tool_calls"
    assert [c.name for c in result.function_calls] == ["get_weather"]


@pytest.mark.parametrize("name", NAMES)
async def test_the_model_is_told_its_call_was_cut_off(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    answers = [wire.calls(CUT_CALL, True, "m"), wire.text("Oslo then.", "m")]
    async with recording_client(wire, answers, sent) as client:
        result = await wire.make(client).ask("Weather?", functions=[get_weather])
    (error,) = wire.results(sent[1])
    assert "reached the token limit while writing this call" in error
    assert "city" in error
    assert result.function_calls[0].status == "error"
    assert (result.truncated, result.finish_reason) == (False, "stop")


@pytest.mark.parametrize("name", NAMES)
async def test_an_answer_cut_at_the_limit_is_truncated(name: str) -> None:
    wire = WIRES[name]
    sent: list[Body] = []
    async with recording_client(wire, [wire.calls([], True, "m")], sent) as client:
        result = await wire.make(client).ask("Tell me a story.")
    assert (result.truncated, result.finish_reason) == (True, "length")
