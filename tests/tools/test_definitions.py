"""Dict definitions in the three shapes, to_tool and to_tools."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper._errors import ToolArgumentsError, ToolDefinitionError
from aiwrapper._tools import Tool, to_tool, to_tools, tool

CANONICAL = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City."},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "stops": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "minutes": {"type": "integer"}},
                "required": ["name"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_simple_shape_is_converted_to_json_schema() -> None:
    made = to_tool(
        {
            "name": "weather",
            "description": "Weather.",
            "parameters": {
                "city": {"type": "string", "description": "City.", "required": True},
                "unit": {"type": "string", "enum": ["c", "f"]},
                "filters": {
                    "type": "object",
                    "properties": {"min": {"type": "int", "required": True}},
                },
                "days": {"type": "array", "items": {"type": "integer"}},
            },
        }
    )
    assert made.has_implementation is False
    assert made.func is None
    assert made.parameters == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City."},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "filters": {
                "type": "object",
                "properties": {"min": {"type": "integer"}},
                "required": ["min"],
                "additionalProperties": False,
            },
            "days": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["city"],
        "additionalProperties": False,
    }


def test_canonical_shape_keeps_the_schema() -> None:
    made = to_tool({"name": "weather", "description": "Weather.", "parameters": CANONICAL})
    assert made.parameters == CANONICAL
    assert made.parameters is not CANONICAL
    assert made.description == "Weather."


def test_openai_shape_with_strict() -> None:
    made = to_tool(
        {
            "type": "function",
            "function": {"name": "weather", "parameters": CANONICAL, "strict": False},
        }
    )
    assert made.strict is False
    assert made.parameters == CANONICAL
    assert made.schema_for("openai")["function"] == {"name": "weather", "parameters": CANONICAL}


def test_dict_tools_validate_against_their_schema() -> None:
    made = to_tool({"name": "weather", "parameters": CANONICAL})
    assert made.validate(
        {"city": "Oslo", "unit": "C", "stops": [{"name": "a", "minutes": "5"}]}
    ) == {"city": "Oslo", "unit": "c", "stops": [{"name": "a", "minutes": 5}]}
    with pytest.raises(ToolArgumentsError) as info:
        made.validate({"unit": "k", "stops": [{"minutes": 1, "extra": 2}], "zzz": 1})
    assert info.value.errors == [
        {"path": "/unit", "message": 'expected one of "c", "f", got string "k"'},
        {"path": "/stops/0/extra", "message": "unknown field 'extra'; valid fields: name, minutes"},
        {"path": "/stops/0/name", "message": "missing required field (expected a string)"},
        {"path": "/zzz", "message": "unknown field 'zzz'; valid fields: city, unit, stops"},
        {"path": "/city", "message": "missing required field (expected a string)"},
    ]


def test_open_objects_keep_unknown_keys() -> None:
    made = to_tool({"name": "log", "parameters": {"type": "object", "properties": {"a": {}}}})
    assert made.validate({"a": 1, "b": [2]}) == {"a": 1, "b": [2]}


def test_refs_and_nullable_in_dict_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {"node": {"$ref": "#/$defs/Node"}, "n": {"type": "number", "nullable": True}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"next": {"$ref": "#/$defs/Node"}},
                "additionalProperties": False,
            }
        },
    }
    made = to_tool({"name": "walk", "parameters": schema})
    assert made.validate({"node": {"next": {"next": {}}}, "n": None}) == {
        "node": {"next": {"next": {}}},
        "n": None,
    }
    with pytest.raises(ToolArgumentsError) as info:
        made.validate({"node": {"next": {"x": 1}}})
    assert info.value.errors[0]["path"] == "/node/next/x"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"description": "no name"}, "has no 'name': a function definition is"),
        ({"name": "x", "parameters": "city"}, "'parameters' must be an object"),
        ({"name": "x", "parameters": [{"type": "string"}]}, "needs a 'name'"),
        ({"name": "x", "parameters": {"a": {"name": "b"}}}, "'a' says its name is 'b'"),
        ({"name": "x", "parameters": {"type": "string"}}, "must describe a JSON object"),
        (
            {
                "name": "x",
                "parameters": {"type": "object", "properties": {"a": {"$ref": "#/nope"}}},
            },
            "does not point into the schema",
        ),
        ({"name": "bad name", "parameters": {}}, "not portable"),
    ],
)
def test_bad_definitions(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        to_tool(spec)


SIMPLE_CITY = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City."},
        "days": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
            "additionalProperties": False,
        },
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_a_simple_parameter_s_own_name_is_read_not_sent_as_a_schema_keyword() -> None:
    by_key = {
        "city": {"name": "city", "type": "string", "description": "City.", "required": True},
        "days": {
            "name": "days",
            "type": "object",
            "properties": {"n": {"name": "n", "type": "int", "required": True}},
        },
    }
    as_list = [{"name": key, **entry} for key, entry in by_key.items()]
    for params in (by_key, as_list):
        made = to_tool({"name": "weather", "parameters": params})
        assert made.parameters == SIMPLE_CITY
        for dialect in ("openai-strict", "anthropic", "gemini", "ollama"):
            assert "name" not in json.dumps(made.schema_for(dialect)).replace(
                '"name": "weather"', ""
            )


@pytest.mark.parametrize(
    "spec",
    [{"type": "retrieval"}, {"type": "code_interpreter"}, {"type": "web_search_20250305"}],
)
def test_a_native_tool_in_functions_says_which_shapes_are_accepted(spec: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        to_tool(spec)
    message = str(info.value)
    assert "is not a function definition" in message
    assert "{'name', 'description', 'parameters'}" in message
    assert "{'type': 'function', 'function': {'name', ...}}" in message
    assert f"{spec['type']!r} goes in the native_tools option" in message
    assert "needs a 'name'" not in message


def test_to_tool_accepts_tools_and_callables() -> None:
    def f(x: int) -> int:
        return x

    made = tool(f)
    assert to_tool(made) is made
    wrapped = to_tool(f)
    assert isinstance(wrapped, Tool)
    assert wrapped.parameters["properties"] == {"x": {"type": "integer"}}
    with pytest.raises(ToolDefinitionError):
        to_tool(42)


def test_to_tools_refuses_duplicate_names() -> None:
    def f(x: int) -> int:
        return x

    tools = to_tools([f, {"name": "g", "parameters": {}}])
    assert [t.name for t in tools] == ["f", "g"]
    assert to_tools(None) == []
    with pytest.raises(ToolDefinitionError, match="two tools are named 'f'"):
        to_tools([f, {"name": "f"}])
