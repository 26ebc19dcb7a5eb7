"""Anthropic's native structured output: the schema subset it can carry, and what is sent."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper.providers.anthropic._output import output_format, output_schema_supported


def obj(**properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    "schema",
    [
        obj(name={"type": "string"}, tags={"type": "array", "items": {"type": "string"}}),
        obj(when={"type": "string", "format": "date-time"}, n={"anyOf": [{"type": "integer"}]}),
        # Property names are names, not keywords: "pattern" and "minimum" may be fields.
        obj(pattern={"type": "string"}, minimum={"type": "number"}),
        {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": obj(b={"$ref": "#/$defs/B"}), "B": obj()}},
    ],
)
def test_schemas_inside_the_subset(schema: dict[str, Any]) -> None:
    assert output_schema_supported(schema)


@pytest.mark.parametrize(
    "schema",
    [
        obj(n={"type": "integer", "minimum": 1}),
        obj(s={"type": "string", "maxLength": 3}),
        obj(s={"type": "string", "pattern": "^a"}),
        obj(s={"type": "string", "format": "ipv9"}),
        obj(xs={"type": "array", "items": {"type": "string"}, "minItems": 2}),
        obj(d={"type": "object", "additionalProperties": {"type": "integer"}}),
        obj(t={"type": "array", "prefixItems": [{"type": "string"}]}),
        {**obj(a={"$ref": "#/$defs/A"}), "$defs": {"A": obj(a={"$ref": "#/$defs/A"})}},
        {
            **obj(a={"$ref": "#/$defs/A"}),
            "$defs": {"A": obj(b={"$ref": "#/$defs/B"}), "B": obj(a={"$ref": "#/$defs/A"})},
        },
    ],
)
def test_schemas_outside_the_subset(schema: dict[str, Any]) -> None:
    assert not output_schema_supported(schema)


def test_annotations_are_left_out_of_the_format_but_names_are_kept() -> None:
    schema = {
        "title": "Weather",
        "description": "Weather in a city.",
        **obj(title={"type": "string", "title": "Title", "default": "x", "examples": ["y"]}),
    }
    assert output_format(schema) == {
        "type": "json_schema",
        "schema": {"description": "Weather in a city.", **obj(title={"type": "string"})},
    }
