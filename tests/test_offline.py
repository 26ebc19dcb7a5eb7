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
def plot(values: list[float], title: str) -> str:
    """Plot values."""
    return title


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
        (
            'Plot 3, 5.5 and 8 titled "Sales"',
            [plot],
            [("plot", {"values": [3, 5.5, 8], "title": "Sales"})],
        ),
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


def _asked_weather(*call_ids: str) -> list[dict[str, Any]]:
    calls = [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}
        for call_id, name in zip(call_ids, ("get_weather", "convert_currency"), strict=False)
    ]
    return [
        {"role": "user", "content": "Weather in Oslo, and 10 dollars in euros?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]


def test_results_given_as_message_dicts_are_named_by_their_call_id() -> None:
    messages = [
        *_asked_weather("c_weather", "c_money"),
        # the results come back in another order than the calls, without a name
        {"role": "tool", "tool_call_id": "c_money", "content": "9.2"},
        {"role": "tool", "tool_call_id": "c_weather", "content": "snow"},
    ]
    result = Lang.offline().chat_sync(messages, functions=[get_weather, convert_currency])
    assert result.function_calls == []
    assert result.answer == (
        "Here is what the tools returned (offline model):\n"
        "- convert_currency: 9.2\n"
        "- get_weather: snow"
    )


def test_a_result_that_names_another_tool_than_its_call_is_named_by_the_call() -> None:
    messages = [
        *_asked_weather("c_weather"),
        {"role": "tool", "tool_call_id": "c_weather", "name": "convert_currency", "content": "1"},
    ]
    result = Lang.offline().chat_sync(messages, functions=[get_weather])
    assert result.answer.endswith("\n- get_weather: 1")


def test_function_call_none_answers_without_calling_a_tool() -> None:
    result = Lang.offline().ask_sync(
        "Weather in Oslo?", functions=[get_weather], function_call="none"
    )
    assert result.function_calls == []
    assert result.answer == "(offline model, no API key set) You said: Weather in Oslo?"


def test_function_call_required_calls_a_tool_even_after_results() -> None:
    messages = [
        *_asked_weather("c_weather"),
        {"role": "tool", "tool_call_id": "c_weather", "content": "snow"},
    ]
    result = Lang.offline().chat_sync(messages, functions=[get_weather], function_call="required")
    assert [(c.name, c.arguments) for c in result.function_calls] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert result.answer.endswith(
        "\n- get_weather: " + '{"city":"Oslo","temperature":2,"unit":"celsius","sky":"snow"}'
    )


def test_a_named_function_call_calls_only_that_tool() -> None:
    result = Lang.offline().ask_sync(
        "Weather in Oslo, and 10 dollars in euros?",
        functions=[get_weather, convert_currency],
        function_call="convert_currency",
    )
    assert [(c.name, c.arguments) for c in result.function_calls] == [
        ("convert_currency", {"amount": 10, "to": "EUR"})
    ]


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("Send 100 to bob", {"amount": 100, "to": "bob"}),
        ("Send 100 to bob, then tell me my balance.", {"amount": 100, "to": "bob"}),
        ("Please pay 20.5 to the landlord", {"amount": 20.5, "to": "landlord"}),
        ("Transfer 7 dollars to Bob", {"amount": 7, "to": "Bob"}),
        ("Bob gets 7", {"amount": 7, "to": "Bob"}),
    ],
)
def test_a_sentence_s_first_word_is_not_taken_for_a_name(
    prompt: str, expected: dict[str, Any]
) -> None:
    assert _calls(prompt, transfer) == [("transfer", expected)]


def test_a_search_query_is_the_question_not_a_pronoun() -> None:
    @tool
    def search_docs(query: str) -> str:
        """Search the documentation."""
        return query

    assert _calls("How do I stream?", search_docs) == [
        ("search_docs", {"query": "How do I stream?"})
    ]


@pytest.mark.anyio
async def test_results_through_the_gateway_are_named_by_their_call_id() -> None:
    import httpx

    from aiwrapper.gateway import Gateway

    city = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": city}}]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Oslo?"}]
    transport = httpx.ASGITransport(Gateway({"offline": Lang.offline()}))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for _ in range(2):
            body = {"model": "offline", "messages": messages, "tools": tools}
            answer = (await client.post("/v1/chat/completions", json=body)).json()
            message = answer["choices"][0]["message"]
            calls = message.get("tool_calls") or []
            messages += [message] + [
                {"role": "tool", "tool_call_id": c["id"], "content": "snow"} for c in calls
            ]
    assert [c["function"] for c in messages[1]["tool_calls"]] == [
        {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    ]
    assert message["content"] == (
        "Here is what the tools returned (offline model):\n- get_weather: snow"
    )
