"""Provider dialects: the tool declaration each provider wants, from the canonical schema.

This module owns :func:`render`, which turns a tool's name, description and canonical JSON
Schema into the declaration of one dialect (protocols.md 1.2, 2.2, 3.2, 4.2, 6.1):

- ``openai``: ``{"type": "function", "function": {...}}``, strict when it converts losslessly
  (or when the tool says ``strict=True``); ``openai-strict``: always strict
  (see :mod:`aiwrapper.tools.strict`);
- ``anthropic``: ``input_schema`` is the canonical schema;
- ``gemini``: the OpenAPI-subset ``parameters`` (refs inlined with recursion capped, ``anyOf``
  standing alone, ``nullable`` instead of null unions, string-only enums, unsupported keys
  moved into the description as notes, ``required`` pruned, every array with ``items``);
- ``gemini-json``: ``parametersJsonSchema``, the canonical schema lightly cleaned;
- ``ollama``: the OpenAI envelope with only the keys Ollama parses, the rest as notes.

A keyword a dialect cannot carry is never dropped silently: it becomes a sentence in the
description (:mod:`aiwrapper.tools.notes`). Only structural keys with no meaning left after
the transform (``$defs``, ``additionalProperties: false``, ``title`` for Ollama) go quietly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .notes import add_notes, constraint_note
from .strict import StrictError, make_strict

__all__ = ["DIALECTS", "render"]

Schema = dict[str, Any]
DIALECTS = ("openai", "openai-strict", "anthropic", "gemini", "gemini-json", "ollama")
RECURSION_LIMIT = 2  # how many times a recursive type is inlined before it is cut off

_GEMINI_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
    "maxItems", "properties", "required", "propertyOrdering", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum", "anyOf",
    "default", "example",
}  # fmt: skip
_OLLAMA_KEYS = {"type", "description", "enum", "items", "properties", "required", "anyOf"}
_QUIET = {"$schema", "$id", "$defs", "definitions", "$comment"}


def render(
    dialect: str, *, name: str, description: str, parameters: Schema, strict: bool | None
) -> Schema:
    """Render one tool's declaration in a dialect.

    Args:
        dialect: One of :data:`DIALECTS`.
        name: The tool's name.
        description: The tool's description (left out when empty).
        parameters: The canonical JSON Schema of the parameters.
        strict: The tool's strictness (``None``: strict only when lossless; OpenAI only).

    Returns:
        The declaration, ready to send.

    Raises:
        ValueError: An unknown dialect.
        StrictError: A strict rendering of a schema that cannot be strict.
    """
    head: Schema = {"name": name}
    if description:
        head["description"] = description
    if dialect in ("openai", "openai-strict"):
        return {"type": "function", "function": _openai(head, parameters, strict, dialect)}
    if dialect == "anthropic":
        return {**head, "input_schema": parameters}
    if dialect == "gemini":
        converted = gemini_schema(parameters)
        return {**head, "parameters": converted} if converted.get("properties") else head
    if dialect == "gemini-json":
        return {**head, "parametersJsonSchema": _json_clean(parameters)}
    if dialect == "ollama":
        return {"type": "function", "function": {**head, "parameters": ollama_schema(parameters)}}
    raise ValueError(f"unknown dialect {dialect!r}; valid dialects: {', '.join(DIALECTS)}")


def _openai(head: Schema, parameters: Schema, strict: bool | None, dialect: str) -> Schema:
    if dialect == "openai-strict" or strict is True:
        return {**head, "parameters": make_strict(parameters)[0], "strict": True}
    if strict is None:
        try:
            converted, lossless = make_strict(parameters)
        except StrictError:
            lossless = False
        if lossless:
            return {**head, "parameters": converted, "strict": True}
    return {**head, "parameters": parameters}


def _map_children(schema: Schema, fn: Callable[[Any], Any]) -> Schema:
    """Copy a schema node, applying ``fn`` to each direct subschema."""
    out: Schema = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: fn(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = fn(value)
        elif key in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(value, list):
            out[key] = [fn(v) for v in value]
        else:
            out[key] = value
    return out


def inline_refs(schema: Schema, root: Schema) -> Schema:
    """Replace every ``$ref`` by its target, cutting recursion after a few levels.

    Args:
        schema: The schema to rewrite.
        root: The document holding ``$defs`` (or ``definitions``).

    Returns:
        A copy without ``$ref`` and without ``$defs``.
    """
    defs = {**root.get("definitions", {}), **root.get("$defs", {})}
    inlined: Schema = _inline(schema, defs, root, ())
    return inlined


def _inline(schema: Any, defs: Schema, root: Schema, stack: tuple[str, ...]) -> Any:
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        out = _map_children(schema, lambda s: _inline(s, defs, root, stack))
        return {k: v for k, v in out.items() if k not in ("$defs", "definitions")}
    name = ref.rpartition("/")[2] if ref != "#" else "#"
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    target = root if ref == "#" else defs.get(name, {})
    if stack.count(name) >= RECURSION_LIMIT:
        stub: Schema = {"type": "object"}
        if siblings.get("description") or target.get("description"):
            stub["description"] = siblings.get("description") or target["description"]
        return add_notes(stub, [f"(A recursive {target.get('title', name)}; deeper levels cut.)"])
    return _inline({**target, **siblings}, defs, root, (*stack, name))


def gemini_schema(parameters: Schema) -> Schema:
    """Convert a canonical schema to Gemini's OpenAPI-subset ``Schema`` (protocols.md 3.2a)."""
    return _gemini(inline_refs(parameters, parameters))


def _gemini(schema: Any) -> Schema:
    if not isinstance(schema, dict):
        return {}
    union = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(union, list):
        return _gemini_union(schema, union)
    kind = schema.get("type")
    if isinstance(kind, list):
        rest = {k: v for k, v in schema.items() if k != "type"}
        return _gemini_union(rest, [{"type": k} for k in kind])
    return _gemini_node(schema)


def _gemini_union(schema: Schema, arms: list[Any]) -> Schema:
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    real = [a for a in arms if not (isinstance(a, dict) and a.get("type") == "null")]
    nullable = len(real) < len(arms)
    if not real:
        out = _gemini_node({**rest, "type": "null"})
    elif len(real) == 1:
        out = _gemini({**real[0], **rest})
    else:
        out = {"anyOf": [_gemini({**a, **_typed_part(rest)}) for a in real]}
        notes = [constraint_note(k, v) for k, v in rest.items() if k in ("default", "examples")]
        if rest.get("description") or notes:
            add_notes(out, [rest.get("description", ""), *notes])
    if nullable:
        out["nullable"] = True
    return out


def _typed_part(rest: Schema) -> Schema:
    """Keys of a union node that belong to each arm (constraints, not annotations)."""
    return {
        k: v
        for k, v in rest.items()
        if k not in ("description", "title", "default") and k not in ("examples", "nullable")
    }


def _gemini_node(schema: Schema) -> Schema:
    schema = _gemini_values(dict(schema))
    notes: list[str] = []
    out: Schema = {}
    for key, value in schema.items():
        if key in _GEMINI_KEYS:
            out[key] = value
        elif key == "examples" and isinstance(value, list) and value:
            out["example"] = value[0]
        elif key == "additionalProperties":
            if isinstance(value, dict):
                notes.append(f"Any keys; each value: {_words(value)}.")
        elif key == "prefixItems":
            notes.append("Items in order: " + ", ".join(_words(s) for s in value) + ".")
            out["items"] = _tuple_items(value)
        elif key not in _QUIET:
            notes.append(constraint_note(key, value))
    if "format" in out and out["format"] not in ("date-time", "enum"):
        notes.append(constraint_note("format", out.pop("format")))
    _gemini_children(out)
    return add_notes(out, notes)


def _gemini_values(schema: Schema) -> Schema:
    """Turn ``const`` into ``enum`` and keep ``enum`` to strings (others become a note)."""
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    values = schema.get("enum")
    if isinstance(values, list):
        if None in values:
            values = [v for v in values if v is not None]
            schema["nullable"] = True
        schema["enum"] = values
        if not all(isinstance(v, str) for v in values):
            add_notes(schema, [constraint_note("enum", schema.pop("enum"))])
    return schema


def _gemini_children(out: Schema) -> None:
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _gemini(v) for k, v in out["properties"].items()}
        if len(out["properties"]) > 1:
            out["propertyOrdering"] = list(out["properties"])
    if "required" in out:
        required = [k for k in out["required"] if k in out.get("properties", {})]
        out["required"] = required
        if not required:
            del out["required"]
    if out.get("type") == "array" or "items" in out:
        out["items"] = _gemini(out.get("items", {}))


def _tuple_items(arms: list[Any]) -> Schema:
    distinct = [a for i, a in enumerate(arms) if a not in arms[:i]]
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


def _words(schema: Any) -> str:
    if not isinstance(schema, dict) or not schema:
        return "any JSON value"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind or schema.get("title") or "a value matching its schema")


def ollama_schema(parameters: Schema) -> Schema:
    """Reduce a canonical schema to what Ollama parses (protocols.md 4.2), refs inlined."""
    reduced: Schema = _ollama(inline_refs(parameters, parameters))
    return reduced


def _ollama(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    notes: list[str] = []
    out: Schema = {}
    for key, value in schema.items():
        if key in _OLLAMA_KEYS:
            out[key] = value
        elif key == "oneOf":
            out["anyOf"] = value
        elif key == "const":
            out["enum"] = [value]
        elif key == "prefixItems":
            notes.append("Items in order: " + ", ".join(_words(s) for s in value) + ".")
            out["items"] = _tuple_items(value)
        elif key == "additionalProperties":
            if isinstance(value, dict):
                notes.append(f"Any keys; each value: {_words(value)}.")
        elif key not in _QUIET and key != "title":
            notes.append(constraint_note(key, value))
    return add_notes(_map_children(out, _ollama), notes)


def _json_clean(schema: Any) -> Any:
    """Gemini ``parametersJsonSchema``: drop ``$schema`` and ``examples``, note ``default``,
    and wrap a ``$ref`` that has siblings (not allowed there) into a one-arm ``anyOf``."""
    if not isinstance(schema, dict):
        return schema
    out = {k: v for k, v in schema.items() if k not in ("$schema", "examples", "default")}
    if "default" in schema:
        add_notes(out, [constraint_note("default", schema["default"])])
    if "$ref" in out and len(out) > 1:
        out = {"anyOf": [{"$ref": out.pop("$ref")}], **out}
    out = _map_children(out, _json_clean)
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {k: _json_clean(v) for k, v in out["$defs"].items()}
    return out
