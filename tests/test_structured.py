"""Structured output through the loop: schemas, parsing, repair rounds, offline and scripted."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from aiwrapper import (
    Lang,
    LangResult,
    MaxIterationsError,
    OutputValidationError,
    ToolArgumentsError,
    tool,
)
from aiwrapper._run._output import OUTPUT_TOOL, output_spec


@dataclass
class Weather:
    """Weather in one city."""

    city: str
    temperature: float
    sky: Literal["sunny", "cloudy"] = "sunny"


class Point(NamedTuple):
    x: int
    y: int


class Movie(TypedDict):
    title: str
    year: int


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Person(BaseModel):
    name: str
    age: int


@tool
def get_temperature(city: str) -> float:
    """Temperature in a city."""
    return 2.5


# -- schemas ---------------------------------------------------------------------------------


def test_an_object_type_is_the_schema_root() -> None:
    spec = output_spec(Weather)
    assert spec is not None
    assert (spec.name, spec.wrapped) == ("Weather", False)
    assert spec.schema == {
        "description": "Weather in one city.",
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "temperature": {"type": "number"},
            "sky": {"type": "string", "enum": ["sunny", "cloudy"], "default": "sunny"},
        },
        "required": ["city", "temperature"],
        "additionalProperties": False,
    }
    assert spec.parse('{"city": "Oslo", "temperature": 3}') == Weather("Oslo", 3.0)


def test_a_type_that_is_not_an_object_is_wrapped_and_unwrapped() -> None:
    spec = output_spec(list[int])
    assert spec is not None
    assert spec.wrapped is True
    assert spec.schema == {
        "type": "object",
        "properties": {"value": {"type": "array", "items": {"type": "integer"}}},
        "required": ["value"],
        "additionalProperties": False,
    }
    assert spec.parse('{"value": [1, 2, "3"]}') == [1, 2, 3]  # the tools' safe coercions


@pytest.mark.parametrize(
    ("output_type", "answer", "value"),
    [
        (Point, '{"x": 1, "y": 2}', Point(1, 2)),
        (Movie, '{"title": "Alien", "year": 1979}', {"title": "Alien", "year": 1979}),
        (Person, '{"name": "Ada", "age": 36}', Person(name="Ada", age=36)),
        (Color, '{"value": "blue"}', Color.BLUE),
        (Literal["yes", "no"], '{"value": "no"}', "no"),
        (int, '{"value": 42}', 42),
        (dict[str, int], '{"value": {"a": 1}}', {"a": 1}),
        (Weather, '```json\n{"city": "Oslo", "temperature": 1}\n```', Weather("Oslo", 1.0)),
    ],
)
def test_every_kind_of_type_parses(output_type: Any, answer: str, value: Any) -> None:
    spec = output_spec(output_type)
    assert spec is not None
    assert spec.parse(answer) == value


def test_str_asks_for_plain_text() -> None:
    assert output_spec(str) is None
    assert output_spec(None) is None


def test_parse_errors_name_every_field() -> None:
    spec = output_spec(Weather)
    assert spec is not None
    with pytest.raises(ToolArgumentsError) as caught:
        spec.parse('{"temperature": "warm", "wind": 3}')
    assert caught.value.errors == [
        {"path": "/temperature", "message": 'expected a number, got string "warm"'},
        {"path": "/wind", "message": "unknown field 'wind'; valid fields: city, temperature, sky"},
        {"path": "/city", "message": "missing required field (expected a string)"},
    ]
    with pytest.raises(ToolArgumentsError, match="not valid JSON"):
        spec.parse("It is sunny.")


# -- the loop --------------------------------------------------------------------------------

pytestmark = pytest.mark.anyio


async def test_result_output_is_the_validated_value() -> None:
    lang = Lang.scripted(['{"city": "Oslo", "temperature": 2.5}'])
    result = await lang.ask("Weather in Oslo?", output_type=Weather)
    assert result.output == Weather("Oslo", 2.5)
    assert result.answer == '{"city": "Oslo", "temperature": 2.5}'  # answer keeps the text
    assert lang.requests[0].options.output_type is Weather


async def test_without_output_type_output_is_the_answer() -> None:
    result = await Lang.scripted(["Sunny."]).ask("Weather?")
    assert result.output == "Sunny."


async def test_a_repair_round_sends_the_validation_errors() -> None:
    lang = Lang.scripted(
        ['{"city": "Oslo", "temperature": "warm"}', '{"city": "Oslo", "temperature": 4}']
    )
    result = await lang.ask("Weather in Oslo?", output_type=Weather)
    assert result.output == Weather("Oslo", 4.0)
    assert result.iterations == 2
    repair = lang.requests[1].messages[-1]
    assert repair.role == "user"
    assert repair.content == (
        "Your answer does not match the required output schema:\n"
        '- /temperature: expected a number, got string "warm"\n'
        "Answer again with only the corrected JSON."
    )


async def test_output_validation_error_carries_the_result_and_names_fields() -> None:
    lang = Lang.scripted(['{"city": "Oslo"}', '{"sky": "rain"}'])
    with pytest.raises(OutputValidationError) as caught:
        await lang.ask("Weather in Oslo?", output_type=Weather)
    error = caught.value
    assert str(error) == (
        "the answer does not fit output_type: "
        '/sky: expected one of "sunny", "cloudy", got string "rain"; '
        "/city: missing required field (expected a string); "
        "/temperature: missing required field (expected a number)"
    )
    assert [e["path"] for e in error.errors] == ["/sky", "/city", "/temperature"]
    assert error.result.iterations == 2
    assert error.result.answer == '{"sky": "rain"}'
    assert error.result.output is None
    assert [m.role for m in error.result.messages] == ["user", "assistant", "user", "assistant"]


async def test_output_retries_zero_raises_at_once() -> None:
    lang = Lang.scripted(["not json"])
    with pytest.raises(OutputValidationError, match="not valid JSON"):
        await lang.ask("Weather?", output_type=Weather, output_retries=0)
    assert len(lang.requests) == 1


async def test_repair_rounds_count_toward_max_iterations() -> None:
    lang = Lang.scripted(['{"city": 1}', '{"city": "Oslo", "temperature": 1}'])
    with pytest.raises(MaxIterationsError) as caught:
        await lang.ask("Weather?", output_type=Weather, max_iterations=1)
    assert caught.value.result.messages[-1].content.startswith("Your answer does not match")


async def test_tools_run_first_then_the_answer_is_structured() -> None:
    lang = Lang.scripted(
        [
            {"function_calls": [{"name": "get_temperature", "arguments": {"city": "Oslo"}}]},
            '{"city": "Oslo", "temperature": 2.5, "sky": "cloudy"}',
        ]
    )
    result = await lang.ask("Weather?", functions=[get_temperature], output_type=Weather)
    assert result.output == Weather("Oslo", 2.5, "cloudy")
    assert [c.name for c in result.function_calls] == ["get_temperature"]
    assert lang.requests[1].messages[-1].role == "tool"


async def test_streamed_text_reaches_on_result_as_usual() -> None:
    seen: list[str] = []

    def watch(result: LangResult[Any]) -> None:
        seen.append(result.answer)

    text = '{"city": "Oslo", "temperature": 2.5}'
    result = await Lang.scripted([text]).ask("Weather?", output_type=Weather, on_result=watch)
    assert len(seen) > 3  # streamed in chunks
    assert seen[:2] == [text[:8], text[:16]]
    assert result.output == Weather("Oslo", 2.5)


async def test_the_offline_model_answers_a_valid_example() -> None:
    result = await Lang.offline().ask("Weather?", output_type=Weather)
    assert result.output == Weather("example", 1.0, "sunny")
    numbers = await Lang.offline().ask("Primes?", output_type=list[Point])
    assert numbers.output == [Point(1, 1)]
    with_tools = await Lang.offline().ask(
        "Weather?", functions=[get_temperature], output_type=Person
    )
    assert with_tools.output == Person(name="example", age=1)
    assert [c.name for c in with_tools.function_calls] == ["get_temperature"]


def test_the_sync_twins_return_the_output() -> None:
    lang = Lang.scripted(['{"value": ["a", "b"]}', '{"value": 3}'])
    assert lang.ask_sync("Letters?", output_type=list[str]).output == ["a", "b"]
    result = lang.chat_sync([{"role": "user", "content": "Count?"}], output_type=int)
    assert result.output == 3


async def test_a_function_named_like_the_final_tool_is_refused() -> None:
    @tool(name=OUTPUT_TOOL)
    def clash() -> str:
        """Clash."""
        return ""

    from aiwrapper import ConfigError

    with pytest.raises(ConfigError, match="'final_result' is reserved"):
        await Lang.scripted(["{}"]).ask("x", functions=[clash], output_type=Weather)
