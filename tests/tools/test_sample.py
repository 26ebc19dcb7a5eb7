"""sample_arguments fits the schema (jsonschema) and passes Tool.validate, for many tools."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import pathlib
import uuid
from typing import Annotated, Any, Literal

import annotated_types
import jsonschema
import pytest

from aiwrapper._tools import Param, Tool, sample_arguments, to_tool, tool

from . import future_tools
from .helpers import Address, Color, Item, Level, Movie, Point, Tree


@tool
def everything(
    name: Annotated[str, Param(min_length=3, max_length=8, pattern="^[a-z]+$")],
    count: Annotated[int, Param(gt=5, lt=9)],
    ratio: Annotated[float, Param(ge=0.5, le=0.75)],
    flag: bool,
    color: Color,
    level: Level,
    items: list[Item],
    tags: set[str],
    pair: tuple[int, str],
    scores: dict[str, float],
    mode: Literal["fast", "slow"] = "fast",
    when: dt.datetime | None = None,
    day: dt.date | None = None,
    ident: uuid.UUID | None = None,
    price: decimal.Decimal | None = None,
    tree: Tree | None = None,
    point: Point | None = None,
    movie: Movie | None = None,
    address: Address | None = None,
    anything: Any = None,
    picked: Annotated[str, Param(examples=["Tokyo"])] = "x",
    many: Annotated[list[int], Param(min_length=3)] = [],  # noqa: B006 - schema default only
) -> None:
    pass


SIMPLE = to_tool(
    {
        "name": "simple",
        "parameters": {
            "q": {"type": "string", "required": True},
            "n": {"type": "integer", "enum": [3, 4]},
        },
    }
)

TOOLS: list[Tool] = [everything, future_tools.walk, SIMPLE]


@pytest.mark.parametrize("made", TOOLS, ids=lambda t: t.name)
def test_sample_arguments_validate(made: Tool) -> None:
    args = sample_arguments(made)
    jsonschema.Draft202012Validator(made.parameters).validate(args)
    made.validate(args)
    assert sample_arguments(made) == args  # deterministic
    assert set(args) == set(made.parameters["properties"])


def test_sample_values_are_concrete() -> None:
    args = sample_arguments(everything)
    assert args["name"] == "example"
    assert args["count"] == 6
    assert args["ratio"] == 0.75
    assert args["color"] == "red"
    assert args["mode"] == "fast"
    assert args["picked"] == "Tokyo"
    assert args["pair"] == [1, "example"]
    assert args["when"] == "2024-01-15T09:30:00+00:00"
    assert len(args["many"]) == 3
    assert args["items"] == [{"name": "example", "qty": 1, "note": "example"}]


def test_canonical_schemas_pass_the_metaschema() -> None:
    for made in TOOLS:
        jsonschema.Draft202012Validator.check_schema(made.parameters)


def test_a_quoted_example_in_the_description_is_preferred() -> None:
    @tool
    def where(city: str, note: str = "") -> str:
        """Where.

        Args:
            city: City name, e.g. "Tokyo".
            note: A note, for example 'urgent'.
        """
        return city

    assert sample_arguments(where) == {"city": "Tokyo", "note": "urgent"}


@dataclasses.dataclass
class Nothing:
    pass


@tool
def more_types(
    words: frozenset[str],
    numbers: tuple[int, ...],
    empty: tuple[()],
    mixed: Literal["a", 1, True],
    yes: Literal[True],
    scores: dict[Literal["home", "away"], int],
    free: dict,  # type: ignore[type-arg]
    bare: list,  # type: ignore[type-arg]
    at: dt.time,
    where: pathlib.Path,
    nothing: Nothing,
    price: Annotated[decimal.Decimal, Param(ge=5, le=6)],
    nested: list[dict[str, list[Item]]],
    either: Item | Point | None,
    level: Level = Level.LOW,
    ratio: Annotated[float, annotated_types.Interval(gt=0, lt=1)] = 0.5,
    short: Annotated[str, annotated_types.MaxLen(3)] = "",
) -> None:
    pass


def test_sample_arguments_for_every_other_type() -> None:
    args = sample_arguments(more_types)
    jsonschema.Draft202012Validator(more_types.parameters).validate(args)
    built = more_types.validate(args)
    assert set(args) == set(more_types.parameters["properties"])
    assert args["empty"] == []
    assert args["scores"] == {"home": 1}
    assert args["mixed"] == "a"
    assert args["yes"] is True
    assert args["price"] == "5.0"  # a decimal string within its numeric bounds
    assert args["nested"] == [{"key": [{"name": "example"}]}]
    assert built["nothing"] == Nothing()
    assert built["where"] == pathlib.Path("example")


def test_sample_arguments_for_a_pydantic_model() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Line(pydantic.BaseModel):
        sku: Annotated[str, pydantic.Field(min_length=4)]
        qty: Annotated[int, pydantic.Field(gt=2)] = 3

    class Order(pydantic.BaseModel):
        lines: list[Line]
        rush: bool = False

    @tool
    def place(order: Order) -> None:
        pass

    args = sample_arguments(place)
    assert args == {"order": {"lines": [{"sku": "example"}], "rush": True}}
    assert place.validate(args)["order"] == Order(lines=[Line(sku="example")], rush=True)
