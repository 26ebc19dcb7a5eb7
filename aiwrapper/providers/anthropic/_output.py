"""Anthropic's native structured output (``output_config.format``): which schemas it can carry.

Anthropic constrains the answer with the same grammar as strict tools, over a JSON Schema
subset: no numeric or length bounds, no patterns, no
recursion, ``additionalProperties`` only ``false``, ``minItems`` of 0 or 1, and a short list of
string formats. A schema inside the subset is sent as it is, less the keywords that only
annotate (``title``, ``default``, ``examples``), which is what Anthropic's own SDK strips too; a
schema outside it would lose a rule, so the run asks through the forced-tool fallback instead
(``aiwrapper._run._capabilities.native_output`` decides).
"""

from __future__ import annotations

from typing import Any

from ..._tools.walk import map_children

__all__ = ["output_format", "output_schema_supported"]

_UNSUPPORTED = frozenset(
    (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "maxItems",
        "uniqueItems",
        "prefixItems",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "propertyNames",
        "not",
        "if",
    )
)
_FORMATS = frozenset(
    ("date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid")
)
_ANNOTATIONS = frozenset(("title", "default", "examples", "$schema"))


def output_format(schema: dict[str, Any]) -> dict[str, Any]:
    """The ``output_config.format`` value for a schema inside the subset."""
    return {"type": "json_schema", "schema": _without_annotations(schema)}


def output_schema_supported(schema: dict[str, Any]) -> bool:
    """Whether ``output_config.format`` can carry ``schema`` without losing a rule."""
    return _subset(schema) and not _recursive(schema.get("$defs", {}))


def _children(node: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    map_children(node, found.append)
    return found


def _without_annotations(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    kept = {k: v for k, v in node.items() if k not in _ANNOTATIONS}
    return map_children(kept, _without_annotations)


def _subset(node: Any) -> bool:
    if not isinstance(node, dict):
        return True
    if _UNSUPPORTED & node.keys() or node.get("minItems", 0) > 1:
        return False
    if isinstance(node.get("format"), str) and node["format"] not in _FORMATS:
        return False
    if node.get("additionalProperties", False) is not False:
        return False
    return all(_subset(child) for child in _children(node))


def _recursive(defs: dict[str, Any]) -> bool:
    """Whether a definition reaches itself through ``$ref`` pointers."""
    refs = {name: _refs(body) for name, body in defs.items()}

    def reaches(start: str, seen: set[str]) -> bool:
        return any(n in seen or reaches(n, seen | {n}) for n in refs.get(start, ()))

    return any(reaches(name, {name}) for name in refs)


def _refs(node: Any) -> set[str]:
    if not isinstance(node, dict):
        return set()
    ref = node.get("$ref")
    found = {ref.rpartition("/")[2]} if isinstance(ref, str) else set()
    return found.union(*(_refs(child) for child in _children(node)))
