"""schema_for: exact declarations for representative tools and each dialect's rules."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import decimal
import uuid
from typing import Annotated, Any, Literal

import pytest

from aiwrapper._errors import ToolDefinitionError
from aiwrapper._tools import DIALECTS, Param, to_tool, tool
from aiwrapper._tools.decorator import read_only_schema

from .helpers import (
    Address,
    Color,
    Item,
    Level,
    Movie,
    Point,
    Tree,
    gemini_violations,
    strict_violations,
)


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
    valid = "anthropic, bedrock, gemini, gemini-json, ollama, openai, openai-strict"
    with pytest.raises(ValueError, match=f"valid dialects: {valid}"):
        get_weather.schema_for("mistral")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_schema_for_returns_a_deep_copy_that_callers_may_edit(dialect: str) -> None:
    @tool
    def paint(color: Color, tree: Tree | None = None, tags: list[str] | None = None) -> None:
        pass

    before = copy.deepcopy(paint.parameters)
    first = paint.schema_for(dialect)
    expected = copy.deepcopy(first)
    _scribble(first)
    assert paint.schema_for(dialect) == expected
    assert paint.parameters == before


def test_read_only_schema_is_one_shared_declaration_equal_to_schema_for() -> None:
    @tool
    def paint(color: Color, tags: list[str] | None = None) -> None:
        pass

    shared = read_only_schema(paint, "openai")
    assert shared == paint.schema_for("openai")
    assert read_only_schema(paint, "openai") is shared  # no copy per request
    assert paint.schema_for("openai") is not shared  # schema_for still hands out copies
    assert read_only_schema(paint, "anthropic") == paint.schema_for("anthropic")


def _scribble(value: Any) -> None:
    """Change every dict and list inside ``value`` in place."""
    if isinstance(value, dict):
        for sub in list(value.values()):
            _scribble(sub)
        value["scribbled"] = True
    elif isinstance(value, list):
        for sub in value:
            _scribble(sub)
        value.append("scribbled")


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


def probe(annotation: Any, default: Any = ...) -> Any:
    def f(x: int) -> None:
        pass

    f.__annotations__ = {"x": annotation}
    if default is not ...:
        f.__defaults__ = (default,)
    return tool(f)


@dataclasses.dataclass
class Empty:
    """Nothing inside."""


EVERY_TYPE: list[Any] = [
    str,
    int,
    float,
    bool,
    Any,
    list,
    list[Item],
    set[str],
    frozenset[int],
    tuple[int, str],
    tuple[int, ...],
    tuple[()],
    dict,
    dict[str, float],
    dict[Literal["a", "b"], int],
    int | None,
    int | str,
    Item | Point | None,
    Literal["a", "b"],
    Literal[1, 2],
    Literal[True],
    Literal["a", 1, True],
    Literal["a"] | None,
    Color,
    Level,
    Empty,
    Tree,
    Point,
    Movie,
    Address,
    dt.datetime,
    dt.date,
    dt.time,
    uuid.UUID,
    decimal.Decimal,
    Annotated[int, Param(ge=0, lt=5)],
    Annotated[str, Param(min_length=1, pattern="^a", examples=["ab"])],
    Annotated[list[int], Param(min_length=1, max_length=3)],
]


@pytest.mark.parametrize("annotation", EVERY_TYPE)
def test_gemini_parameters_follow_every_schema_rule(annotation: Any) -> None:
    declaration = probe(annotation).schema_for("gemini")
    assert gemini_violations(declaration["parameters"]) == []


STRICTABLE = [
    t for t in EVERY_TYPE if t not in (Any, list, dict, dict[str, float], tuple[int, str])
]
STRICTABLE.remove(tuple[()])
STRICTABLE.remove(dict[Literal["a", "b"], int])


@pytest.mark.parametrize("annotation", STRICTABLE)
def test_openai_strict_follows_every_strict_rule(annotation: Any) -> None:
    required = probe(annotation).schema_for("openai-strict")["function"]["parameters"]
    optional = probe(annotation, None).schema_for("openai-strict")["function"]["parameters"]
    assert strict_violations(required) == []
    assert strict_violations(optional) == []


@pytest.mark.parametrize("annotation", [Any, list, dict, dict[str, float], tuple[int, str]])
def test_openai_strict_refuses_what_it_cannot_express(annotation: Any) -> None:
    with pytest.raises(ToolDefinitionError, match=r"parameter 'x(\[\])?' cannot be used in"):
        probe(annotation).schema_for("openai-strict")
    assert "strict" not in probe(annotation).schema_for("openai")["function"]


def test_gemini_splits_a_mixed_literal_between_typed_arms() -> None:
    params = probe(Literal["a", "b", 1, True]).schema_for("gemini")["parameters"]
    assert params["properties"]["x"] == {
        "anyOf": [
            {"type": "string", "enum": ["a", "b"]},
            {"type": "integer", "description": "Allowed values: 1."},
            {"type": "boolean", "description": "Allowed values: true."},
        ]
    }


def test_gemini_any_becomes_an_any_of_the_json_types_and_null() -> None:
    scalars = [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]
    any_value = {
        "anyOf": [
            *scalars,
            {"type": "object"},
            {
                "type": "array",
                "items": {"anyOf": [*scalars, {"type": "object"}], "nullable": True},
            },
        ],
        "nullable": True,
    }
    assert probe(Any).schema_for("gemini")["parameters"]["properties"]["x"] == any_value
    bare_list = probe(list).schema_for("gemini")["parameters"]["properties"]["x"]
    assert bare_list == {"type": "array", "items": any_value}


def test_gemini_object_without_fields_has_no_empty_properties() -> None:
    params = probe(Empty).schema_for("gemini")["parameters"]
    assert params["properties"]["x"] == {
        "title": "Empty",
        "description": "Nothing inside.",
        "type": "object",
    }


def test_gemini_keeps_only_the_formats_its_schema_lists() -> None:
    @tool
    def when(at: dt.datetime, day: dt.date, ident: uuid.UUID) -> None:
        pass

    props = when.schema_for("gemini")["parameters"]["properties"]
    assert props["at"] == {"type": "string", "format": "date-time"}
    assert props["day"] == {"type": "string", "description": "Format: date."}
    assert props["ident"] == {"type": "string", "description": "Format: uuid."}


def test_gemini_json_keeps_only_the_listed_keywords_and_notes_the_rest() -> None:
    @tool
    def pick(
        name: Annotated[str, Param(min_length=2, pattern="^[a-z]+$")],
        count: Annotated[int, Param(gt=0, le=9)],
        tags: set[str],
        flag: Literal[True],
        mode: Literal["x"] = "x",
    ) -> None:
        pass

    assert pick.schema_for("gemini-json")["parametersJsonSchema"] == {
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "description": "At least 2 characters. "
                'Must match the regular expression "^[a-z]+$".',
            },
            "count": {"type": "integer", "maximum": 9, "description": "Must be > 0."},
            "tags": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Items must be unique.",
            },
            "flag": {"type": "boolean", "description": "Allowed values: true."},
            "mode": {"type": "string", "enum": ["x"], "description": 'Default: "x".'},
        },
        "required": ["name", "count", "tags", "flag"],
        "additionalProperties": False,
    }


def test_gemini_json_turns_openapi_nullable_and_const_of_dict_definitions() -> None:
    made = to_tool(
        {
            "name": "f",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "nullable": True},
                    "b": {"const": "fixed"},
                },
            },
        }
    )
    assert made.schema_for("gemini-json")["parametersJsonSchema"]["properties"] == {
        "a": {"type": ["string", "null"]},
        "b": {"enum": ["fixed"]},
    }


def test_strict_is_lossy_when_a_nullable_optional_has_another_default() -> None:
    @tool
    def capped(limit: int | None = 10) -> None:
        pass

    @tool
    def uncapped(limit: int | None = None) -> None:
        pass

    assert "strict" not in capped.schema_for("openai")["function"]
    assert uncapped.schema_for("openai")["function"]["strict"] is True
    strict = capped.schema_for("openai-strict")["function"]["parameters"]
    assert strict["properties"]["limit"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def _wide(count: int) -> dict[str, Any]:
    props = {f"p{i}": {"type": "integer"} for i in range(count)}
    return {"type": "object", "properties": props, "required": list(props)}


def _deep(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    return schema


def _enum(count: int, width: int) -> dict[str, Any]:
    values = [f"{i:0{width}d}" for i in range(count)]
    props = {"e": {"type": "string", "enum": values}}
    return {"type": "object", "properties": props, "required": ["e"]}


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (_wide(5001), "the schema cannot .* it has 5001 object properties; the limit is 5000"),
        (_deep(11), r"parameter 'n\.n\.n\.n\.n\.n\.n\.n\.n\.n' .* more than 10 levels deep"),
        (_enum(1001, 1), "it has 1001 enum values; the limit is 1000"),
        (_enum(251, 60), "parameter 'e' .* an enum of 251 strings totals 15060 characters"),
    ],
)
def test_openai_strict_size_limits(parameters: dict[str, Any], message: str) -> None:
    spec = {"name": "big", "parameters": parameters}
    assert "strict" not in to_tool(spec).schema_for("openai")["function"]
    with pytest.raises(ToolDefinitionError, match=message):
        to_tool({**spec, "strict": True})


def test_openai_strict_just_under_the_size_limits_stays_strict() -> None:
    for parameters in (_wide(5000), _deep(10), _enum(1000, 1), _enum(250, 60)):
        made = to_tool({"name": "big", "parameters": parameters})
        assert made.schema_for("openai")["function"]["strict"] is True
