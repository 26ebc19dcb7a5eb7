"""Canonical schemas from type hints: every supported type, descriptions and defaults."""

from __future__ import annotations

import datetime as dt
import decimal
import pathlib
import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types
import jsonschema
import pytest

from aiwrapper.tools import Context, Param, tool

from .helpers import Address, Color, Item, Level, Movie, Point, Tree


def prop(annotation: Any) -> dict[str, Any]:
    """The schema of a single parameter ``x`` annotated with ``annotation``."""

    def probe(x: int) -> None:
        pass

    probe.__annotations__ = {"x": annotation}
    return tool(probe).parameters["properties"]["x"]


def defs(annotation: Any) -> dict[str, Any]:
    def probe(x: int) -> None:
        pass

    probe.__annotations__ = {"x": annotation}
    return tool(probe).parameters.get("$defs", {})


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (Any, {}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list, {"type": "array", "items": {}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (dict, {"type": "object"}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045 - the Optional spelling is under test
        (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
        (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
        (Literal[True], {"type": "boolean", "enum": [True]}),
        (Literal["a", 1], {"enum": ["a", 1]}),
        (dt.datetime, {"type": "string", "format": "date-time"}),
        (dt.date, {"type": "string", "format": "date"}),
        (dt.time, {"type": "string", "format": "time"}),
        (uuid.UUID, {"type": "string", "format": "uuid"}),
        (pathlib.Path, {"type": "string"}),
        (Annotated[str, "The name."], {"type": "string", "description": "The name."}),
        (
            Annotated[int, Param(ge=1, lt=10, description="Count.")],
            {"type": "integer", "minimum": 1, "exclusiveMaximum": 10, "description": "Count."},
        ),
        (
            Annotated[str, Param(min_length=2, max_length=5, pattern="^[a-z]+$")],
            {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
        ),
        (
            Annotated[list[int], Param(min_length=1, max_length=3)],
            {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
        ),
        (
            Annotated[str, Param(examples=["Tokyo"])],
            {"type": "string", "examples": ["Tokyo"]},
        ),
        (
            Annotated[float, annotated_types.Gt(0), annotated_types.Le(1)],
            {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        ),
        (
            Annotated[str, annotated_types.Len(1, 4)],
            {"type": "string", "minLength": 1, "maxLength": 4},
        ),
        (Annotated[int, annotated_types.MultipleOf(5)], {"type": "integer", "multipleOf": 5}),
    ],
)
def test_type_maps_to_schema(annotation: Any, expected: dict[str, Any]) -> None:
    assert prop(annotation) == expected


def test_decimal_is_a_string_with_a_number_pattern() -> None:
    schema = prop(decimal.Decimal)
    assert schema["type"] == "string"
    assert schema["pattern"].startswith("^")


def test_pydantic_field_metadata_is_read_by_duck_typing() -> None:
    pydantic = pytest.importorskip("pydantic")
    annotation = Annotated[int, pydantic.Field(description="Age.", ge=0, le=150)]
    assert prop(annotation) == {
        "type": "integer",
        "minimum": 0,
        "maximum": 150,
        "description": "Age.",
    }


def test_enum_goes_to_defs_by_value() -> None:
    assert prop(Color) == {"$ref": "#/$defs/Color"}
    assert defs(Color) == {
        "Color": {
            "title": "Color",
            "description": "A paint color.",
            "type": "string",
            "enum": ["red", "green"],
        }
    }
    assert defs(Level)["Level"] == {"title": "Level", "type": "integer", "enum": [1, 2]}


def test_dataclass_with_defaults_and_field_metadata() -> None:
    assert prop(Item) == {"$ref": "#/$defs/Item"}
    assert defs(Item)["Item"] == {
        "title": "Item",
        "description": "A line of an order.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Product name."},
            "qty": {"type": "integer", "default": 1},
            "note": {"type": "string", "description": "Free text.", "default": ""},
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_recursive_dataclass_refers_to_itself() -> None:
    tree = defs(Tree)["Tree"]
    assert tree["properties"]["children"] == {"type": "array", "items": {"$ref": "#/$defs/Tree"}}
    assert tree["required"] == ["value"]


def test_namedtuple_is_an_object() -> None:
    assert defs(Point)["Point"] == {
        "title": "Point",
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
        "required": ["x"],
        "additionalProperties": False,
    }


def test_typeddict_required_and_not_required() -> None:
    movie = defs(Movie)["Movie"]
    assert movie["properties"] == {"title": {"type": "string"}, "year": {"type": "integer"}}
    assert movie["required"] == ["title"]
    address = defs(Address)["Address"]
    assert address["required"] == ["street"]


def test_pydantic_model_schema_is_merged_into_defs() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Pet(pydantic.BaseModel):
        name: str
        age: int = 0

    @tool
    def adopt(pet: Pet) -> str:
        return pet.name

    assert adopt.parameters["properties"]["pet"] == {"$ref": "#/$defs/Pet"}
    pet = adopt.parameters["$defs"]["Pet"]
    assert pet["properties"]["name"] == {"title": "Name", "type": "string"}
    assert pet["required"] == ["name"]
    assert pet["additionalProperties"] is False


def test_whole_tool_schema_with_docstring_and_defaults() -> None:
    @tool
    def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
        """Get the current weather in a city.

        Uses a live service.

        Args:
            city: City name, e.g. "Tokyo".
            unit: Temperature unit.
        """
        return {}

    assert get_weather.name == "get_weather"
    assert get_weather.description == "Get the current weather in a city.\n\nUses a live service."
    assert get_weather.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": 'City name, e.g. "Tokyo".'},
            "unit": {
                "type": "string",
                "enum": ["celsius", "fahrenheit"],
                "description": "Temperature unit.",
                "default": "celsius",
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }


def test_annotated_description_wins_over_docstring() -> None:
    @tool
    def f(x: Annotated[int, "From Annotated."]) -> None:
        """Do.

        Args:
            x: From the docstring.
        """

    assert f.parameters["properties"]["x"]["description"] == "From Annotated."


def test_defaults_that_are_not_json_are_left_out() -> None:
    sentinel = object()

    @tool
    def f(x: Any = sentinel, when: dt.date = dt.date(2024, 1, 2), c: Color = Color.GREEN) -> None:
        pass

    props = f.parameters["properties"]
    assert props["x"] == {}
    assert props["when"]["default"] == "2024-01-02"
    assert props["c"] == {"$ref": "#/$defs/Color", "default": "green"}


def test_context_parameter_is_left_out() -> None:
    @tool
    def f(q: str, ctx: Context[dict[str, int]]) -> None:
        pass

    assert list(f.parameters["properties"]) == ["q"]
    assert f.context_param == "ctx"


def test_no_parameters_gives_an_empty_closed_object() -> None:
    @tool
    def ping() -> str:
        return "pong"

    assert ping.parameters == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }


KITCHEN_SINK_TYPES: list[Any] = [
    str,
    int,
    float,
    bool,
    None,
    Any,
    list[Item],
    set[str],
    tuple[int, str],
    dict[str, float],
    Optional[Color],  # noqa: UP045 - the Optional spelling is under test
    Union[int, str],
    Literal["a", 2],
    dt.datetime,
    uuid.UUID,
    decimal.Decimal,
    pathlib.Path,
    Tree,
    Point,
    Movie,
    Address,
    Level,
    Annotated[int, Param(ge=0, le=5)],
]


@pytest.mark.parametrize("annotation", KITCHEN_SINK_TYPES)
def test_generated_schemas_are_valid_json_schema_2020_12(annotation: Any) -> None:
    def probe(x: int) -> None:
        pass

    probe.__annotations__ = {"x": annotation}
    jsonschema.Draft202012Validator.check_schema(tool(probe).parameters)
