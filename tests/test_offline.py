"""The offline model calls tools with the values the question states, once per listed value."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from aiwrapper import Lang, tool
from aiwrapper.__main__ import convert_currency, get_weather


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def transfer(amount: float, to: str) -> str:
    """Send money to someone."""
    return f"sent {amount} to {to}"


@tool
def ticket(seat: Literal["window", "aisle"], count: int) -> str:
    """Book seats."""
    return f"{count} {seat}"


def _calls(prompt: str, *functions: Any) -> list[tuple[str, dict[str, Any]]]:
    result = Lang.offline().ask_sync(prompt, functions=list(functions))
    return [(c.name, c.arguments) for c in result.function_calls]


@pytest.mark.parametrize(
    ("prompt", "functions", "expected"),
    [
        ("What is 2 + 3?", [add], [("add", {"a": 2, "b": 3})]),
        (
            "100 dollars in yen",
            [convert_currency],
            [("convert_currency", {"amount": 100, "to": "JPY"})],
        ),
        (
            "Weather in Tokyo and Paris?",
            [get_weather],
            [("get_weather", {"city": "Tokyo"}), ("get_weather", {"city": "Paris"})],
        ),
        (
            "Send 1,500.5 dollars to Alice.",
            [transfer],
            [("transfer", {"amount": 1500.5, "to": "Alice"})],
        ),
        ('Weather in "new york"?', [get_weather], [("get_weather", {"city": "new york"})]),
        (
            "Tokyo weather in fahrenheit?",
            [get_weather],
            [("get_weather", {"city": "Tokyo", "unit": "fahrenheit"})],
        ),
        ("And in Oslo?", [get_weather], [("get_weather", {"city": "Oslo"})]),
        (
            "Convert 100 and 250 dollars to euros",
            [convert_currency],
            [
                ("convert_currency", {"amount": 100, "to": "EUR"}),
                ("convert_currency", {"amount": 250, "to": "EUR"}),
            ],
        ),
        ("Two aisle seats: 2 please", [ticket], [("ticket", {"seat": "aisle", "count": 2})]),
    ],
)
def test_values_come_from_the_question(
    prompt: str, functions: list[Any], expected: list[tuple[str, dict[str, Any]]]
) -> None:
    assert _calls(prompt, *functions) == expected


def test_what_the_question_does_not_say_is_sampled_from_the_schema() -> None:
    assert _calls("hi", add) == [("add", {"a": 1, "b": 1})]
    assert _calls("Book it", ticket) == [("ticket", {"seat": "window", "count": 1})]


def test_a_value_the_schema_refuses_falls_back_to_a_valid_sample() -> None:
    from typing import Annotated

    from aiwrapper import Param

    @tool
    def pick(n: Annotated[int, Param(ge=10, le=20)]) -> int:
        """Pick a number."""
        return n

    assert _calls("Pick 3", pick) == [("pick", {"n": 10})]


def test_the_demo_question_gets_the_answer_it_asks_for() -> None:
    prompt = "What's the weather in Tokyo, and how much is 100 dollars in yen?"
    result = Lang.offline().ask_sync(prompt, functions=[get_weather, convert_currency])
    assert [(c.name, c.arguments) for c in result.function_calls] == [
        ("get_weather", {"city": "Tokyo"}),
        ("convert_currency", {"amount": 100, "to": "JPY"}),
    ]
    assert "- convert_currency: 15130.0" in result.answer
