"""The shape of a JSON Schema someone else wrote: each keyword of its JSON type, depth bounded.

A tool's schema written by hand (a dict definition, a gateway client's tool) is read by every
dialect transform, the validator and the sample builder, each of which trusts that
``properties`` is an object of schemas, ``required`` a list of names, ``minimum`` a number.
Checking that once, where the tool is made, turns a malformed schema into one
``ToolDefinitionError`` naming the tool and the keyword's path, instead of an
``AttributeError`` from whichever provider's encoder reads it first. Both walks keep their own
stack, so no nesting can exhaust Python's recursion limit; the nesting itself is bounded
because the transforms that come after recurse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ToolDefinitionError
from .._wire._numbers import finite_number

__all__ = ["MAX_NESTING", "check_nesting", "check_schema_shape"]

MAX_NESTING = 100  # JSON objects and arrays inside one another; real tools use a handful


def check_nesting(value: Any, *, tool_name: str) -> None:
    """Refuse a definition whose objects and arrays nest deeper than ``MAX_NESTING``.

    Raises:
        ToolDefinitionError: Naming the tool.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameters nest more than {MAX_NESTING} levels deep"
            )
        if isinstance(node, Mapping):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)


def check_schema_shape(schema: Mapping[str, Any], *, tool_name: str) -> None:
    """Check that every keyword the SDK reads has its JSON type, in every subschema.

    Keywords the SDK does not read are left as they are.

    Raises:
        ToolDefinitionError: Naming the tool and the path of the first wrong keyword.
    """
    stack: list[tuple[Any, str]] = [(schema, "parameters")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, bool):  # true / false: any value, no value
            continue
        if not isinstance(node, Mapping):
            raise _wrong(tool_name, path, "a schema (an object)", node)
        for key, value in node.items():
            stack.extend(_children(key, value, f"{path}/{key}", tool_name))


def _children(key: str, value: Any, path: str, tool_name: str) -> list[tuple[Any, str]]:
    """The subschemas under one keyword, after checking the keyword's own type."""
    leaf = _LEAVES.get(key)
    if leaf is not None:
        expected, fits = leaf
        if not fits(value):
            raise _wrong(tool_name, path, expected, value)
        return []
    kind = _SUBSCHEMAS.get(key)
    if kind == "one" or (kind == "one or list" and not isinstance(value, list)):
        return [(value, path)]
    if kind in ("list", "one or list"):
        if not isinstance(value, list):
            raise _wrong(tool_name, path, "a list of schemas", value)
        return [(item, f"{path}/{i}") for i, item in enumerate(value)]
    if kind == "map":
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise _wrong(tool_name, path, "an object of schemas", value)
        return [(item, f"{path}/{name}") for name, item in value.items()]
    return []  # a keyword the SDK does not read


def _wrong(tool_name: str, path: str, expected: str, value: Any) -> ToolDefinitionError:
    return ToolDefinitionError(f"tool {tool_name!r}: {path} must be {expected}, not {value!r:.80}")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_regex(value: Any) -> bool:
    """Whether Python's ``re`` reads ``value``, as the validator will."""
    try:
        re.compile(value)
    except (re.error, TypeError):
        return False
    return True


def _is_string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# Where subschemas sit: under one keyword, in a list, or by name (``items`` was a list in
# older drafts of JSON Schema).
_SUBSCHEMAS: dict[str, str] = {
    **dict.fromkeys(("properties", "patternProperties", "$defs", "definitions"), "map"),
    **dict.fromkeys(("dependentSchemas",), "map"),
    **dict.fromkeys(("anyOf", "oneOf", "allOf", "prefixItems"), "list"),
    **dict.fromkeys(("additionalProperties", "additionalItems", "not", "contains"), "one"),
    **dict.fromkeys(("propertyNames", "if", "then", "else"), "one"),
    "items": "one or list",
}
_STRING = ("a string", lambda v: isinstance(v, str))
_COUNT = ("an int of at least 0", _is_count)
_NUMBER = ("a finite number", finite_number)
_LEAVES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "type": ("a type name or a list of them", lambda v: isinstance(v, str) or _is_string_list(v)),
    "required": ("a list of property names", _is_string_list),
    "enum": ("a list of values", lambda v: isinstance(v, list)),
    **dict.fromkeys(("$ref", "description", "title", "format"), _STRING),
    "pattern": ("a regular expression", _is_regex),
    **dict.fromkeys(("minimum", "maximum"), _NUMBER),
    "multipleOf": ("a number above 0", lambda v: finite_number(v) and v > 0),
    # A number, or (JSON Schema draft 4) a flag on minimum / maximum.
    **dict.fromkeys(
        ("exclusiveMinimum", "exclusiveMaximum"),
        ("a finite number", lambda v: isinstance(v, bool) or finite_number(v)),
    ),
    **dict.fromkeys(("minLength", "maxLength", "minItems", "maxItems"), _COUNT),
    **dict.fromkeys(("minProperties", "maxProperties"), _COUNT),
    **dict.fromkeys(("uniqueItems", "nullable"), ("true or false", lambda v: isinstance(v, bool))),
}
