"""Dict tools whose schema has the wrong shape fail where the tool is made, naming the tool.

Such a schema once ran on the scripted model (which reads no dialect) and was an
``AttributeError`` in OpenAI's encoder; one nested 200 levels was a ``RecursionError``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._errors import ToolArgumentsError, ToolDefinitionError
from aiwrapper._tools import DIALECTS, sample_arguments, to_tool
from aiwrapper._tools.schemashape import MAX_NESTING


def nested(levels: int) -> dict[str, Any]:
    """An object schema with ``levels`` objects inside one another under ``a``."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def prop(**schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": schema}}


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"type": "object", "properties": [1]}, "parameters/properties must be an object of"),
        ({"type": "object", "required": 5}, "parameters/required must be a list of property"),
        ({"type": "object", "required": [5]}, "parameters/required must be a list of property"),
        ({"type": "object", "$defs": 5}, "parameters/$defs must be an object of schemas"),
        ({"type": "object", "additionalProperties": 5}, "parameters/additionalProperties"),
        ({"type": "object", "anyOf": 5}, "parameters/anyOf must be a list of schemas, not 5"),
        ({"type": "object", "properties": {"a": 5}}, "parameters/properties/a must be a schema"),
        (prop(type="array", items=5), "parameters/properties/a/items must be a schema"),
        (prop(anyOf=[1]), "parameters/properties/a/anyOf/0 must be a schema (an object), not 1"),
        (prop(type={}), "parameters/properties/a/type must be a type name or a list of them"),
        (prop(enum=5), "parameters/properties/a/enum must be a list of values, not 5"),
        (prop(type="string", pattern="("), "parameters/properties/a/pattern must be a regular"),
        (prop(type="string", minLength="2"), "parameters/properties/a/minLength must be an int"),
        (prop(type="number", maximum=[1]), "parameters/properties/a/maximum must be a finite"),
        (prop(type="number", multipleOf=0), "parameters/properties/a/multipleOf must be a number"),
        (prop(type="string", format=[1]), "parameters/properties/a/format must be a string"),
        (prop(**{"$ref": 5}), "parameters/properties/a/$ref must be a string, not 5"),
        (nested(200), f"parameters nest more than {MAX_NESTING} levels deep"),
        (nested(5000), f"parameters nest more than {MAX_NESTING} levels deep"),
    ],
)
def test_a_dict_tool_of_the_wrong_shape_fails_when_made_naming_the_tool_and_the_keyword(
    parameters: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolDefinitionError) as info:
        to_tool({"name": "lookup", "parameters": parameters})
    assert str(info.value).startswith(f"tool 'lookup': {message}")


def test_the_simple_shape_is_checked_after_conversion() -> None:
    with pytest.raises(ToolDefinitionError, match="parameters/properties/q/enum must be a list"):
        to_tool({"name": "find", "parameters": {"q": {"type": "string", "enum": "ab"}}})


@pytest.mark.parametrize(
    "parameters",
    [
        prop(type=["string", "null"], minLength=0, pattern="^a", format="email"),
        prop(type="number", exclusiveMinimum=True, minimum=0, multipleOf=0.5),  # draft 4
        prop(type="array", items=[{"type": "string"}], additionalItems=False),
        prop(anyOf=[True, {"type": "null"}], description="anything", **{"x-custom": 5}),
        {"type": "object", "properties": {"type": {"type": "string"}, "items": {}}},
        nested(MAX_NESTING // 2 - 1),
    ],
)
def test_well_formed_schemas_render_in_every_dialect(parameters: dict[str, Any]) -> None:
    made = to_tool({"name": "lookup", "parameters": parameters})
    for dialect in set(DIALECTS) - {"openai-strict"}:  # strict refuses some, by name
        assert made.schema_for(dialect)
    assert isinstance(sample_arguments(made), dict)


@pytest.mark.anyio
async def test_openai_refuses_a_malformed_dict_tool_before_any_request() -> None:
    sent: list[httpx.Request] = []
    client = httpx.AsyncClient(transport=httpx.MockTransport(sent.append))  # type: ignore[arg-type]
    bad = {"name": "lookup", "parameters": {"type": "object", "properties": [1]}}
    async with client:
        lang = Lang.openai("gpt-4o-mini", api_key="k", http_client=client)
        with pytest.raises(ToolDefinitionError, match="tool 'lookup': parameters/properties"):
            await lang.ask("hi", functions=[bad])
    assert sent == []


def test_the_scripted_model_refuses_it_too() -> None:
    bad = {"name": "lookup", "parameters": {"type": "object", "required": 5}}
    lang = Lang.scripted(["never"])
    with pytest.raises(ToolDefinitionError, match="tool 'lookup': parameters/required"):
        lang.ask_sync("hi", functions=[bad])
    assert lang.requests == []


@pytest.mark.parametrize(
    "arms",
    [[True, {"type": "null"}], [False, {"type": "string"}], [True], [{"$ref": "#/$defs/X"}]],
)
def test_boolean_schemas_render_for_gemini(arms: list[Any]) -> None:
    parameters = {**prop(anyOf=arms), "$defs": {"X": True}}
    made = to_tool({"name": "lookup", "parameters": parameters})
    rendered = made.schema_for("gemini")["parameters"]["properties"]["a"]
    assert "anyOf" in rendered or rendered["type"] == "string"
    assert made.schema_for("ollama")


def test_a_multiple_beyond_float_precision_is_an_argument_error_not_an_overflow() -> None:
    made = to_tool({"name": "lookup", "parameters": prop(type="number", multipleOf=1e-300)})
    with pytest.raises(ToolArgumentsError, match="/a: must be a multiple of 1e-300"):
        made.validate({"a": 1e10})
