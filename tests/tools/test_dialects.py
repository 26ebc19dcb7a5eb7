"""schema_for: exact declarations for representative tools and each dialect's rules."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import pytest

from aiwrapper.errors import ToolDefinitionError
from aiwrapper.tools import DIALECTS, Param, tool

from .helpers import Color, Tree


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict[str, Any]:
    """Get the current weather in a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return {}


@tool
def search(
    query: Annotated[str, Param(min_length=1)],
    limit: Annotated[int, Param(gt=0, le=50)] = 10,
    tags: list[str] | None = None,
    level: Literal[1, 2, 3] = 1,
) -> list[str]:
    """Search the catalog."""
    return []


@tool
def ping() -> str:
    """Check the service."""
    return "pong"


def test_openai_strict_when_lossless() -> None:
    assert get_weather.schema_for("openai") == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City name."},
                    "unit": {
                        "type": ["string", "null"],
                        "enum": ["celsius", "fahrenheit", None],
                        "description": "Temperature unit.",
                    },
                },
                "required": ["city", "unit"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


def test_openai_plain_when_strict_would_lose_a_constraint() -> None:
    declaration = search.schema_for("openai")["function"]
    assert "strict" not in declaration
    assert declaration["parameters"] == search.parameters


def test_openai_strict_dialect_moves_unsupported_keywords_into_notes() -> None:
    params = search.schema_for("openai-strict")["function"]["parameters"]
    assert params["properties"]["query"] == {
        "type": "string",
        "description": "At least 1 characters.",
    }
    assert params["properties"]["limit"] == {
        "type": ["integer", "null"],
        "exclusiveMinimum": 0,
        "maximum": 50,
    }
    assert params["properties"]["tags"] == {
        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]
    }
    assert params["required"] == ["query", "limit", "tags", "level"]


def test_strict_false_renders_plain_without_strict_key() -> None:
    made = tool(strict=False)(get_weather.func)
    assert made.schema_for("openai") == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": get_weather.parameters,
        },
    }


def test_strict_refs_with_siblings_are_inlined_and_defs_kept() -> None:
    @tool
    def paint(color: Annotated[Color, "Which color."], tree: Tree | None = None) -> None:
        pass

    params = paint.schema_for("openai-strict")["function"]["parameters"]
    assert params["properties"]["color"] == {
        "title": "Color",
        "description": "Which color.",
        "type": "string",
        "enum": ["red", "green"],
    }
    assert params["properties"]["tree"] == {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]}
    assert params["$defs"]["Tree"]["properties"]["children"] == {
        "type": ["array", "null"],
        "items": {"$ref": "#/$defs/Tree"},
    }
    assert params["$defs"]["Tree"]["required"] == ["value", "children"]


def test_strict_refuses_free_form_dict_naming_the_parameter() -> None:
    @tool
    def store(key: str, payload: dict[str, Any]) -> None:
        pass

    assert "strict" not in store.schema_for("openai")["function"]
    with pytest.raises(ToolDefinitionError, match=r"parameter 'payload'.*free-form object"):
        store.schema_for("openai-strict")


def test_strict_true_fails_at_decoration_time() -> None:
    with pytest.raises(ToolDefinitionError, match="parameter 'payload'"):

        @tool(strict=True)
        def store(payload: dict) -> None:  # type: ignore[type-arg]
            pass


@pytest.mark.parametrize(
    ("annotation", "reason"),
    [(Any, "accepts any value"), (tuple[int, str], "fixed-length tuple")],
)
def test_strict_refusals(annotation: Any, reason: str) -> None:
    def f(x: int) -> None:
        pass

    f.__annotations__ = {"x": annotation}
    with pytest.raises(ToolDefinitionError, match=reason):
        tool(f).schema_for("openai-strict")


def test_anthropic_uses_input_schema() -> None:
    assert get_weather.schema_for("anthropic") == {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "input_schema": get_weather.parameters,
    }


def test_gemini_openapi_subset() -> None:
    assert search.schema_for("gemini") == {
        "name": "search",
        "description": "Search the catalog.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "limit": {
                    "type": "integer",
                    "maximum": 50,
                    "default": 10,
                    "description": "Must be > 0.",
                },
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "default": None,
                    "nullable": True,
                },
                "level": {
                    "type": "integer",
                    "default": 1,
                    "description": "Allowed values: 1, 2, 3.",
                },
            },
            "required": ["query"],
            "propertyOrdering": ["query", "limit", "tags", "level"],
        },
    }


def test_gemini_without_parameters_omits_them() -> None:
    assert ping.schema_for("gemini") == {"name": "ping", "description": "Check the service."}


def test_gemini_inlines_refs_and_caps_recursion() -> None:
    @tool
    def grow(tree: Tree) -> None:
        pass

    params = grow.schema_for("gemini")["parameters"]
    level1 = params["properties"]["tree"]
    assert level1["title"] == "Tree"
    level2 = level1["properties"]["children"]["items"]
    assert level2["title"] == "Tree"
    assert level2["properties"]["children"]["items"] == {
        "type": "object",
        "description": "(A recursive Tree; deeper levels cut.)",
    }
    text = repr(params)
    for key in ("$ref", "$defs", "additionalProperties", "exclusiveMinimum", "prefixItems"):
        assert key not in text


def test_gemini_union_stands_alone_and_tuple_and_dict_become_notes() -> None:
    @tool
    def mix(
        a: int | str, b: tuple[int, str], c: dict[str, int], d: Literal["x"] | None = None
    ) -> None:
        pass

    props = mix.schema_for("gemini")["parameters"]["properties"]
    assert props["a"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert props["b"] == {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "description": "Items in order: integer, string.",
    }
    assert props["c"] == {"type": "object", "description": "Any keys; each value: integer."}
    assert props["d"] == {"type": "string", "enum": ["x"], "default": None, "nullable": True}


def test_gemini_json_keeps_json_schema_lightly_cleaned() -> None:
    @tool
    def paint(color: Color = Color.RED, n: Annotated[int, Param(examples=[3])] = 1) -> None:
        pass

    assert paint.schema_for("gemini-json") == {
        "name": "paint",
        "parametersJsonSchema": {
            "type": "object",
            "properties": {
                "color": {"anyOf": [{"$ref": "#/$defs/Color"}], "description": 'Default: "red".'},
                "n": {"type": "integer", "description": "Default: 1."},
            },
            "required": [],
            "additionalProperties": False,
            "$defs": {
                "Color": {
                    "title": "Color",
                    "description": "A paint color.",
                    "type": "string",
                    "enum": ["red", "green"],
                }
            },
        },
    }


def test_ollama_keeps_only_parsed_keys_and_notes_the_rest() -> None:
    assert search.schema_for("ollama") == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the catalog.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "At least 1 characters."},
                    "limit": {
                        "type": "integer",
                        "description": "Must be <= 50. Must be > 0. Default: 10.",
                    },
                    "tags": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                        "description": "Default: null.",
                    },
                    "level": {"type": "integer", "enum": [1, 2, 3], "description": "Default: 1."},
                },
                "required": ["query"],
            },
        },
    }


def test_unknown_dialect_lists_valid_ones() -> None:
    with pytest.raises(ValueError, match="valid dialects: openai, openai-strict, anthropic"):
        get_weather.schema_for("bedrock")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_schema_for_is_cached_and_returns_fresh_top_level(dialect: str) -> None:
    first = search.schema_for(dialect)
    first["extra"] = 1
    second = search.schema_for(dialect)
    assert "extra" not in second
    assert search._cache[dialect] is not second
    assert second == {k: v for k, v in first.items() if k != "extra"}


@dataclasses.dataclass
class Big:
    a: Annotated[str, Param(pattern="^x", max_length=3)]
    b: Annotated[float, Param(ge=0)]
    c: set[int]


@pytest.mark.parametrize("dialect", ["gemini", "ollama"])
def test_no_constraint_is_dropped_silently(dialect: str) -> None:
    @tool
    def f(big: Big) -> None:
        pass

    text = repr(f.schema_for(dialect))
    if dialect == "ollama":
        assert 'Must match the regular expression "^x".' in text
        assert "At most 3 characters." in text
        assert "Must be >= 0." in text
    assert "Items must be unique." in text
