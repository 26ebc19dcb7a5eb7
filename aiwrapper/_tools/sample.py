"""Schema-valid example arguments for a tool, used by the offline demo model.

This module owns :func:`sample_arguments`: a deterministic walk of a tool's canonical schema
that fills every property (required and optional) with a value that fits: the first example
or enum value when there is one, otherwise a plain value nudged into the bounds, lengths,
pattern and format the schema states. Recursive types stop at optional fields after a few
levels.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .decorator import Tool

__all__ = ["sample_arguments", "sample_value"]

_MAX_DEPTH = 4
_FORMATS = {
    "date-time": "2024-01-15T09:30:00+00:00",
    "date": "2024-01-15",
    "time": "09:30:00",
    "uuid": "123e4567-e89b-42d3-a456-426614174000",
    "email": "user@example.com",
    "uri": "https://example.com",
}
_EXAMPLE_IN_TEXT = re.compile(r"""(?:e\.g\.|for example|such as),?\s*["'`]([^"'`]+)["'`]""")
_BOUNDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
_STRING_CANDIDATES = ("example", "1", "a", "A", "abc", "x1", "0", "1.5", "user@example.com")


def sample_arguments(tool: Tool) -> dict[str, Any]:
    """Generate arguments that pass ``tool.validate`` (and the JSON Schema).

    Args:
        tool: The tool whose parameters to fill.

    Returns:
        A JSON object with every property of the parameters schema filled.
    """
    value = sample_value(tool.parameters, tool.parameters)
    return value if isinstance(value, dict) else {}


def sample_value(schema: Any, root: dict[str, Any], depth: int = 0, variant: int = 0) -> Any:
    """Generate one value for ``schema`` (``$ref`` resolved against ``root``)."""
    if not isinstance(schema, dict):
        return "example"
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, root)
        return sample_value(
            {**target, **{k: v for k, v in schema.items() if k != "$ref"}}, root, depth + 1, variant
        )
    if isinstance(schema.get("examples"), list) and schema["examples"] and variant == 0:
        return schema["examples"][0]
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][variant % len(schema["enum"])]
    arms = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(arms, list) and arms:
        return sample_value(_pick_arm(arms, depth), root, depth, variant)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return _typed(kind, schema, root, depth, variant)


def _typed(
    kind: Any, schema: dict[str, Any], root: dict[str, Any], depth: int, variant: int
) -> Any:
    if kind == "string":
        return _string(schema, variant)
    if kind in ("integer", "number"):
        return _number(schema, variant, integer=kind == "integer")
    if kind == "boolean":
        return variant % 2 == 0
    if kind == "null":
        return None
    if kind == "array" or "items" in schema or "prefixItems" in schema:
        return _array(schema, root, depth)
    if kind == "object" or "properties" in schema:
        return _object(schema, root, depth)
    return "example"


def _pick_arm(arms: list[Any], depth: int) -> Any:
    real = [a for a in arms if not (isinstance(a, dict) and a.get("type") == "null")]
    if depth >= _MAX_DEPTH and len(real) < len(arms):
        return {"type": "null"}
    return real[0] if real else arms[0]


def _string(schema: dict[str, Any], variant: int) -> str:
    if schema.get("format") in _FORMATS:
        return _FORMATS[schema["format"]]
    if _BOUNDS & schema.keys():  # a Decimal written as a string, with numeric bounds
        return str(_number(schema, variant, integer=False))
    low, high = schema.get("minLength", 0), schema.get("maxLength")
    pattern = schema.get("pattern")
    candidates = [f"{c}{variant}" if variant else c for c in _STRING_CANDIDATES]
    described = _described_example(schema.get("description"))
    if described and not variant:
        candidates.insert(0, described)
    for text in candidates:
        text = text.ljust(low, "x")
        if high is not None:
            text = text[:high]
        if len(text) >= low and (pattern is None or re.search(pattern, text)):
            return text
    return "x" * int(low)


def _described_example(description: Any) -> str | None:
    """The quoted example a description gives, as in ``City name, e.g. "Tokyo".``"""
    if not isinstance(description, str):
        return None
    found = _EXAMPLE_IN_TEXT.search(description)
    return found.group(1) if found else None


def _number(schema: dict[str, Any], variant: int, *, integer: bool) -> float | int:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1 + variant
    if low is not None and value <= low:
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    if high is not None and value >= high:
        value = high - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0)
        if low is not None and value <= low:
            value = (low + high) / 2
    step = schema.get("multipleOf")
    if step:
        value = step * max(1, round(value / step))
    return int(value) if integer else float(value)


def _array(schema: dict[str, Any], root: dict[str, Any], depth: int) -> list[Any]:
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        return [sample_value(s, root, depth + 1, 0) for s in prefix]
    low = schema.get("minItems", 0)
    high = schema.get("maxItems")
    count = max(low, 1 if depth < _MAX_DEPTH else 0)
    if high is not None:
        count = min(count, high)
    item = schema.get("items", {})
    return [sample_value(item, root, depth + 1, i) for i in range(count)]


def _object(schema: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    props = schema.get("properties")
    required = set(schema.get("required", []))
    if not isinstance(props, dict) or not props:
        extra = schema.get("additionalProperties")
        if not isinstance(extra, dict):
            return {}
        names = schema.get("propertyNames")
        key = sample_value(names, root, depth + 1) if isinstance(names, dict) else "key"
        return {key if isinstance(key, str) else "key": sample_value(extra, root, depth + 1)}
    return {
        key: sample_value(sub, root, depth + 1)
        for key, sub in props.items()
        if key in required or depth < _MAX_DEPTH
    }


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    target: Any = root
    for token in filter(None, ref.lstrip("#").split("/")):
        target = target.get(token, {}) if isinstance(target, dict) else {}
    return target if isinstance(target, dict) else {}
