"""Checks every front-end runs on a decoded request body before reading its fields.

JSON lets a client send what the readers behind a front-end cannot take: containers nested
deep enough to exhaust Python's recursion limit in whatever walks them later, strings with
lone surrogates that no UTF-8 body (the upstream request, the log) can carry, and tool schemas
whose keywords have the wrong type (``properties: [1]``), which encoders would trip over after
the request was accepted. Each is a 400 naming the JSON path, found in one linear, iterative
walk, never a traceback. What each field means is the front-ends' business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._serving import MAX_TOOLS, bad_request

__all__ = ["MAX_DEPTH", "check_body", "check_schema"]

# Deeper than any real request (a tool schema 40 levels deep is about 80 JSON levels), far
# below the depth at which a recursive reader would hit Python's limit of 1000 frames.
MAX_DEPTH = 128

# Schema keywords holding one schema, a map of schemas, or a list of schemas.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_MAP = ("properties", "$defs", "definitions", "patternProperties")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
_TEXT = ("format", "pattern", "description", "title", "$ref")  # keywords holding a string


def check_body(body: Any) -> None:
    """A 400 when ``body`` nests deeper than ``MAX_DEPTH``, holds a string UTF-8 cannot carry,
    or declares more than ``MAX_TOOLS`` tools (checked first, the cheapest refusal).

    The walk that finds a fault keeps no paths, so a body of many small nodes stays cheap;
    only a body at fault is walked again for the path the 400 names.
    """
    tools = body.get("tools") if isinstance(body, dict) else None
    if isinstance(tools, list) and len(tools) > MAX_TOOLS:  # before walking them all
        raise bad_request(f"a request may declare at most {MAX_TOOLS} tools", "tools")
    if not _fine(body):
        _find_fault(body)


def _fine(body: Any) -> bool:
    stack: list[tuple[Any, int]] = [(body, 0)] if isinstance(body, (dict, list)) else []
    if isinstance(body, str) and not _is_utf8(body):
        return False
    while stack:
        value, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return False
        if type(value) is dict:
            for key in value:
                if not key.isascii() and not _is_utf8(key):
                    return False
            value = value.values()
        for item in value:
            kind = type(item)
            if kind is str:
                if not item.isascii() and not _is_utf8(item):
                    return False
            elif kind is dict or kind is list:
                stack.append((item, depth + 1))
    return True


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _find_fault(body: Any) -> None:
    """Raise the 400 for the fault ``_fine`` found, naming its JSON path."""
    stack: list[tuple[Any, str, int]] = [(body, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str) and not _is_utf8(value):
            raise bad_request("a string holds a lone surrogate, which UTF-8 cannot carry", path)
        if not isinstance(value, (dict, list)):
            continue
        if depth >= MAX_DEPTH:
            raise bad_request(f"the body nests deeper than {MAX_DEPTH} levels", path or None)
        if isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{key}" if path else key
                stack.extend(((key, where, depth), (item, where, depth + 1)))
        else:
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value))


def check_schema(schema: Any, path: str) -> None:
    """A 400 naming the first keyword of a tool's JSON Schema whose value has the wrong type.

    Only the keywords encoders read are checked (``type``, ``properties``, ``required``,
    ``enum``, the ones holding text and the ones holding subschemas); a boolean schema is fine.
    """
    stack: list[tuple[Any, str]] = [(schema, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, Mapping):
            raise bad_request("a schema must be an object", where)
        _check_keywords(node, where)
        stack.extend(_subschemas(node, where))


def _check_keywords(node: Mapping[str, Any], where: str) -> None:
    kind = node.get("type")
    if kind is not None and not _is_strings(kind, single=True):
        raise bad_request("'type' must be a string or a list of strings", f"{where}.type")
    required = node.get("required")
    if required is not None and not _is_strings(required, single=False):
        raise bad_request("'required' must be a list of strings", f"{where}.required")
    if node.get("enum") is not None and not isinstance(node["enum"], list):
        raise bad_request("'enum' must be a list", f"{where}.enum")
    for key in _TEXT:
        if node.get(key) is not None and not isinstance(node[key], str):
            raise bad_request(f"{key!r} must be a string", f"{where}.{key}")


def _is_strings(value: Any, *, single: bool) -> bool:
    if single and isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _subschemas(node: Mapping[str, Any], where: str) -> list[tuple[Any, str]]:
    found: list[tuple[Any, str]] = []
    for key in _ONE:
        value = node.get(key)
        if isinstance(value, list) and key == "items":  # the old tuple form: one per position
            found.extend((item, f"{where}.items[{i}]") for i, item in enumerate(value))
        elif value is not None:
            found.append((value, f"{where}.{key}"))
    for key in _MAP:
        value = node.get(key)
        if value is None:
            continue
        if not isinstance(value, Mapping):
            raise bad_request(f"{key!r} must be an object of schemas", f"{where}.{key}")
        found.extend((item, f"{where}.{key}.{name}") for name, item in value.items())
    for key in _LIST:
        value = node.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise bad_request(f"{key!r} must be a list of schemas", f"{where}.{key}")
        found.extend((item, f"{where}.{key}[{i}]") for i, item in enumerate(value))
    return found
