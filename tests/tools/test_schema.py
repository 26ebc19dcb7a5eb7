"""Canonical schemas from type hints: every supported type, descriptions and defaults."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import pathlib
import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types
import jsonschema
import pytest
from typing_extensions import Required, TypedDict

from aiwrapper._errors import ToolArgumentsError
from aiwrapper._tools import Context, Param, tool

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
        (Literal["a", 1], {"type": ["string", "integer"], "enum": ["a", 1]}),
        (Literal["a", 1, True], {"type": ["string", "integer", "boolean"], "enum": ["a", 1, True]}),
        (Literal[1, 2.5], {"type": "number", "enum": [1, 2.5]}),
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
    Literal["a", 1, True],
    dict[Literal["a", "b"], int],
    Annotated[decimal.Decimal, Param(ge=0)],
    tuple[()],
    frozenset[Color],
]


@pytest.mark.parametrize("annotation", KITCHEN_SINK_TYPES)
def test_generated_schemas_are_valid_json_schema_2020_12(annotation: Any) -> None:
    def probe(x: int) -> None:
        pass

    probe.__annotations__ = {"x": annotation}
    jsonschema.Draft202012Validator.check_schema(tool(probe).parameters)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (
            Annotated[int, annotated_types.Ge(1), annotated_types.Le(9)],
            {"minimum": 1, "maximum": 9},
        ),
        (
            Annotated[int, annotated_types.Gt(0), annotated_types.Lt(5)],
            {"exclusiveMinimum": 0, "exclusiveMaximum": 5},
        ),
        (
            Annotated[float, annotated_types.Interval(ge=0, lt=1)],
            {"minimum": 0, "exclusiveMaximum": 1},
        ),
        (Annotated[str, annotated_types.MinLen(2)], {"minLength": 2}),
        (Annotated[str, annotated_types.MaxLen(8)], {"maxLength": 8}),
        (Annotated[list[int], annotated_types.MinLen(1)], {"minItems": 1}),
        (Annotated[dict[str, int], annotated_types.MaxLen(3)], {"maxProperties": 3}),
        (Annotated[int | None, annotated_types.Ge(0)], {"minimum": 0}),
    ],
)
def test_annotated_types_markers_become_constraints(annotation: Any, expected: Any) -> None:
    schema = prop(annotation)
    assert {k: v for k, v in schema.items() if k in expected} == expected


def test_annotated_types_markers_are_enforced() -> None:
    def f(
        n: Annotated[int, annotated_types.Gt(0)],
        s: Annotated[str, annotated_types.MaxLen(2)],
        xs: Annotated[list[int], annotated_types.MinLen(1)],
    ) -> None:
        pass

    made = tool(f)
    assert made.validate({"n": 1, "s": "ab", "xs": [1]}) == {"n": 1, "s": "ab", "xs": [1]}
    with pytest.raises(ToolArgumentsError) as info:
        made.validate({"n": 0, "s": "abc", "xs": []})
    assert info.value.errors == [
        {"path": "/n", "message": "must be greater than 0, got 0"},
        {"path": "/s", "message": "must have at most 2 characters, got 3"},
        {"path": "/xs", "message": "must have at least 1 items, got 0"},
    ]


def test_enum_with_int_values_and_literal_keys() -> None:
    class Priority(enum.Enum):
        LOW = 1
        HIGH = 5

    assert defs(Priority)["Priority"] == {"title": "Priority", "type": "integer", "enum": [1, 5]}
    assert prop(dict[Literal["a", "b"], int]) == {
        "type": "object",
        "propertyNames": {"type": "string", "enum": ["a", "b"]},
        "additionalProperties": {"type": "integer"},
    }


def test_typeddict_total_false_with_required_keys() -> None:
    class Options(TypedDict, total=False):
        """Search options.

        Attributes:
            lang: Result language.
        """

        lang: str
        limit: Required[int]

    assert defs(Options)["Options"] == {
        "title": "Options",
        "description": "Search options.",
        "type": "object",
        "properties": {
            "lang": {"type": "string", "description": "Result language."},
            "limit": {"type": "integer"},
        },
        "required": ["limit"],
        "additionalProperties": False,
    }


def test_examples_that_are_not_json_are_left_out() -> None:
    assert prop(Annotated[str, Param(examples=[object()])]) == {"type": "string"}
    assert prop(Annotated[dt.date, Param(examples=[dt.date(2024, 5, 1)])]) == {
        "type": "string",
        "format": "date",
        "examples": ["2024-05-01"],
    }


def test_pydantic_nested_model_with_a_clashing_name_is_renamed() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Outer(pydantic.BaseModel):
        class Item(pydantic.BaseModel):
            sku: int

        item: Item
        qty: Annotated[int, pydantic.Field(ge=1, description="How many.")]

    def order(first: Item, second: Outer) -> None:  # Item is the dataclass of helpers
        pass

    made = tool(order)
    schema = made.parameters
    assert list(schema["$defs"]) == ["Item", "Item2", "Outer"]
    assert schema["$defs"]["Item"]["properties"]["name"] == {
        "type": "string",
        "description": "Product name.",
    }
    assert schema["$defs"]["Item2"]["properties"] == {"sku": {"title": "Sku", "type": "integer"}}
    assert schema["$defs"]["Outer"]["properties"] == {
        "item": {"$ref": "#/$defs/Item2"},
        "qty": {"description": "How many.", "minimum": 1, "title": "Qty", "type": "integer"},
    }
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(
        {"first": {"name": "pen"}, "second": {"item": {"sku": 1}, "qty": 1}}
    )
    built = made.validate({"first": {"name": "pen"}, "second": {"item": {"sku": "7"}, "qty": 2}})
    assert built["second"].item.sku == 7


def test_pydantic_model_shared_by_two_models_is_defined_once() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Place(pydantic.BaseModel):
        city: str

    class Trip(pydantic.BaseModel):
        start: Place
        end: Place

    def plan(trip: Trip, home: Place) -> None:
        pass

    assert list(tool(plan).parameters["$defs"]) == ["Place", "Trip"]


def test_recursive_pydantic_model() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Folder(pydantic.BaseModel):
        name: str
        children: list[Folder] = pydantic.Field(default_factory=list)

    def walk(root: Folder) -> None:
        pass

    made = tool(walk)
    assert made.parameters["properties"]["root"] == {"$ref": "#/$defs/Folder"}
    folder = made.parameters["$defs"]["Folder"]
    assert folder["properties"]["children"]["items"] == {"$ref": "#/$defs/Folder"}
    built = made.validate({"root": {"name": "a", "children": [{"name": "b"}]}})["root"]
    assert built.children[0].name == "b"
    with pytest.raises(ToolArgumentsError) as info:
        made.validate({"root": {"name": "a", "children": [{"nam": "b"}]}})
    assert [e["path"] for e in info.value.errors] == [
        "/root/children/0/nam",
        "/root/children/0/name",
    ]


def test_method_returning_its_own_class_under_future_annotations() -> None:
    class Box:
        @tool
        def clone(self, times: int) -> Box:
            return self

    assert Box.clone.parameters["properties"] == {"times": {"type": "integer"}}
