"""Tools from plain dicts, and the normal form of a ``functions`` list.

This module owns :func:`to_tool` and :func:`to_tools`. A dict definition comes in one of three
shapes:

1. the simple AIWrapper shape ``{"name", "description", "parameters": {param: {"type",
   "description", "required", "enum", "items", "properties"}}}``, converted to a closed JSON
   Schema object whose ``required`` list collects the ``required: true`` flags;
2. the canonical shape, with a JSON Schema object in ``parameters``;
3. the Chat Completions envelope ``{"type": "function", "function": {"name", "description",
   "parameters", "strict"?}}``.

Such a tool has no implementation (its calls go to a ``function_handler``); its arguments are
checked against the JSON Schema by the same nodes as Python tools, as plain JSON values.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._errors import ToolDefinitionError
from .decorator import Tool, make_tool
from .schemanodes import check_refs, compile_schema
from .schemashape import check_nesting, check_schema_shape

__all__ = ["simple_to_schema", "to_tool", "to_tools"]

_TYPE_ALIASES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
    "none": "null",
}
_OPTIONS = ("strict", "timeout", "sequential", "requires_approval")
_NOT_SCHEMA = ("required", "name")  # simple-entry keys read here, never sent as schema


def to_tool(obj: Tool | Mapping[str, Any] | Any) -> Tool:
    """Turn a ``Tool``, a callable or a dict definition (any of the 3 shapes) into a ``Tool``.

    Args:
        obj: What the user put in ``functions``.

    Returns:
        The tool (a ``Tool`` is returned unchanged).

    Raises:
        ToolDefinitionError: A dict that matches no shape or whose schema is unusable, or a
            callable whose signature cannot be described.
    """
    if isinstance(obj, Tool):
        return obj
    if isinstance(obj, Mapping):
        return _from_dict(obj)
    if callable(obj):
        return make_tool(obj, None, sys._getframe(1))
    raise ToolDefinitionError(f"cannot make a tool from {obj!r}: pass a function, Tool or dict")


def to_tools(objs: Iterable[Tool | Mapping[str, Any] | Any] | None) -> list[Tool]:
    """Normalize a ``functions`` list, refusing two tools with the same name.

    Args:
        objs: Tools, callables and dict definitions (``None`` means none).

    Returns:
        The tools, in the given order.

    Raises:
        ToolDefinitionError: A bad entry, or a duplicate name.
    """
    tools: list[Tool] = []
    seen: set[str] = set()
    for obj in objs or ():
        made = to_tool(obj)
        if made.name in seen:
            message = f"two tools are named {made.name!r}; tool names must be unique"
            raise ToolDefinitionError(message)
        seen.add(made.name)
        tools.append(made)
    return tools


def _from_dict(spec: Mapping[str, Any]) -> Tool:
    body: Mapping[str, Any] = spec
    if spec.get("type") == "function" and isinstance(spec.get("function"), Mapping):
        body = spec["function"]
    name = body.get("name")
    if not isinstance(name, str) or not name:
        raise ToolDefinitionError(_unknown_shape(spec))
    params = body.get("parameters")
    if params is None:
        params = spec.get("input_schema", {})
    check_nesting(params, tool_name=name)  # before the copies and walks below recurse
    if isinstance(params, list):  # the spec's list of FunctionParameter, each with its name
        schema = simple_to_schema(params)
    elif not isinstance(params, Mapping):
        raise ToolDefinitionError(f"tool {name!r}: 'parameters' must be an object")
    elif _is_json_schema(params):
        schema = copy.deepcopy(dict(params))
    else:
        schema = simple_to_schema(params)
    if schema.get("type", "object") != "object":
        raise ToolDefinitionError(f"tool {name!r}: parameters must describe a JSON object")
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    check_schema_shape(schema, tool_name=name)
    check_refs(schema, schema)
    options = {k: body.get(k, spec.get(k)) for k in _OPTIONS if k in body or k in spec}
    return Tool(
        name=name,
        description=str(body.get("description") or ""),
        parameters=schema,
        validator=compile_schema(schema),
        **options,
    )


def _unknown_shape(spec: Mapping[str, Any]) -> str:
    """Why a dict is not a function definition, and which shapes are."""
    shapes = (
        "a function definition is {'name', 'description', 'parameters'} (parameters as a "
        "JSON Schema object or the simple {param: {'type', ...}} map), or the Chat "
        "Completions envelope {'type': 'function', 'function': {'name', ...}}"
    )
    kind = spec.get("type")
    if isinstance(kind, str) and kind != "function":
        return (
            f"{dict(spec)!r} is not a function definition ({shapes}); a provider-native "
            f"tool such as {kind!r} goes in the native_tools option"
        )
    return f"{dict(spec)!r} has no 'name': {shapes}"


def _is_json_schema(params: Mapping[str, Any]) -> bool:
    if isinstance(params.get("type"), str) or not params:
        return True
    props = params.get("properties")
    return isinstance(props, Mapping) and not isinstance(props.get("type"), str)


def simple_to_schema(params: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """Convert the simple AIWrapper parameters into a closed JSON Schema object.

    Args:
        params: ``{param: {"type", "description", "required", "enum", "items", "properties"}}``,
            or a list of such entries each naming itself with ``"name"``. An entry's own
            ``name`` (the spec's ``FunctionParameter.name``) is read, never sent as a schema
            keyword.

    Returns:
        ``{"type": "object", "properties", "required", "additionalProperties": false}``.

    Raises:
        ToolDefinitionError: An entry that is not an object, or whose name is missing or
            disagrees with its key.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, entry in _named_entries(params):
        properties[key] = _simple_entry(entry)
        if entry.get("required") is True:
            required.append(key)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _named_entries(params: Mapping[str, Any] | Sequence[Any]) -> list[tuple[Any, Any]]:
    """``(parameter name, entry)`` pairs of a simple map or list, names checked."""
    pairs: list[tuple[Any, Any]]
    if isinstance(params, Mapping):
        pairs = list(params.items())
    else:
        pairs = [
            (entry.get("name") if isinstance(entry, Mapping) else None, entry) for entry in params
        ]
    for key, entry in pairs:
        if not isinstance(entry, Mapping):
            raise ToolDefinitionError(f"parameter {key!r} must be described by an object")
        if not isinstance(key, str) or not key:
            raise ToolDefinitionError(f"parameter {dict(entry)!r} needs a 'name'")
        if entry.get("name", key) != key:
            raise ToolDefinitionError(
                f"parameter {key!r} says its name is {entry['name']!r}; the two must agree"
            )
    return pairs


def _simple_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in entry.items() if k not in _NOT_SCHEMA}
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = _TYPE_ALIASES.get(kind.lower(), kind)
    if isinstance(out.get("properties"), Mapping):
        out.update(simple_to_schema(out["properties"]))
    if isinstance(out.get("items"), Mapping):
        out["items"] = _simple_entry(out["items"])
    return out
