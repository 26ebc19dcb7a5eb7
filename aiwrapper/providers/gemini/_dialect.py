"""Gemini's two schema dialects, derived from the canonical schema.

This module owns :func:`gemini_schema` (``parameters``: Gemini's OpenAPI-subset ``Schema``) and
:func:`gemini_json_schema` (``parametersJsonSchema``: JSON Schema with Google's published
keyword list). Both keep to the keys Gemini is known to accept, because one unknown key
anywhere fails the whole request (400 ``Unknown name "X"``); a keyword that has to go becomes
a sentence in the description (:mod:`aiwrapper._tools.notes`).

Rules for ``parameters``, each seen in Gemini's 400 errors (evidence in public issue trackers):

- only the keys of ``_SCHEMA_KEYS``; ``$ref`` inlined with recursion cut off;
- ``type`` is one name, never a list ("Proto field is not repeating"): unions become ``anyOf``
  standing alone, ``null`` arms become ``nullable: true``;
- every node has a ``type`` or an ``anyOf`` ("type: must be specified when not using one_of,
  any_of or all_of fields", LibreChat #6971); ``Any`` becomes an ``anyOf`` of the JSON types;
- ``enum`` holds strings only; ``const`` becomes a one-value ``enum``;
- every array has ``items`` ("items: missing field");
- an object never carries an empty ``properties`` ("properties: should be non-empty for
  OBJECT type", also for nested objects: browser-use #3786); a nested ``{"type": "object"}``
  without the key is accepted (vercel/ai #11319); ``required`` names only defined properties;
- ``format`` only as the Schema reference lists it: ``enum``/``date-time`` for strings,
  ``int32``/``int64`` for integers, ``float``/``double`` for numbers. Whether Gemini
  takes other string formats is unconfirmed; decided from the reference's wording (quoted in
  CherryHQ/cherry-studio #4153): other formats become a note.

Known limit of ``parametersJsonSchema``: Gemini unrolls cyclic refs only a few levels, so a
recursive type reached only through required fields may be refused there;
``parameters`` cuts recursion itself and has no such limit.
"""

from __future__ import annotations

import copy
from typing import Any

from ..._tools.notes import add_notes, constraint_note
from ..._tools.walk import SHAPE_REWRITES, Rewrite, inline_refs, keep_or_note, map_children

__all__ = ["SCHEMA_DIALECTS", "gemini_json_schema", "gemini_schema"]

Schema = dict[str, Any]

_SCHEMA_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
    "maxItems", "properties", "required", "propertyOrdering", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum", "anyOf",
    "default", "example",
}  # fmt: skip
# Google's published keyword list for parametersJsonSchema. Whether other keywords (default,
# pattern, const...) are ignored or refused there is unconfirmed, so they are moved into
# the description to be safe.
_JSON_KEYS = {
    "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum",
    "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf",
    "properties", "additionalProperties", "required", "propertyOrdering",
}  # fmt: skip
_QUIET = {"$schema", "$id", "$defs", "definitions", "$comment"}
_JSON_QUIET = {*_QUIET, "examples"}
_FORMATS: dict[Any, tuple[str, ...]] = {
    "string": ("enum", "date-time"),
    "integer": ("int32", "int64"),
    "number": ("float", "double"),
}
_NUMERIC_OR_TEXT = ("string", "integer", "number")
_SCALARS: list[Schema] = [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]
# ``Any`` admits null, in every dialect: here through ``nullable`` beside the types.
_ANY: list[Schema] = [
    *_SCALARS,
    {"type": "object"},
    {"type": "array", "items": {"anyOf": [*_SCALARS, {"type": "object"}], "nullable": True}},
]


def gemini_schema(parameters: Schema) -> Schema:
    """Convert a canonical schema to Gemini's OpenAPI-subset ``Schema``."""
    return _gemini(inline_refs(parameters, parameters))


def _gemini(schema: Any) -> Schema:
    if not isinstance(schema, dict):
        return _gemini_node({})
    union = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(union, list):
        return _gemini_union(schema, union)
    kind = schema.get("type")
    if isinstance(kind, list):  # a mixed Literal splits its enum between the arms
        rest = {k: v for k, v in schema.items() if k not in ("type", "enum")}
        return _gemini_union(rest, [_typed_arm(k, schema.get("enum")) for k in kind])
    return _gemini_node(schema)


def _typed_arm(kind: Any, values: Any) -> Schema:
    arm: Schema = {"type": kind}
    if isinstance(values, list):
        arm["enum"] = [v for v in values if _kind_of(v) == kind]
    return arm


def _gemini_union(schema: Schema, arms: list[Any]) -> Schema:
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    # A boolean arm from a hand-written schema: ``true`` is any value, ``false`` none.
    arms = [arm if isinstance(arm, dict) else {} for arm in arms if arm is not False]
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
    skip = ("description", "title", "default", "examples", "nullable")
    return {k: v for k, v in rest.items() if k not in skip}


def _first_example(value: Any, out: Schema, notes: list[str]) -> None:
    if isinstance(value, list) and value:
        out["example"] = value[0]  # the Schema object has one example, not a list
    else:
        notes.append(constraint_note("examples", value))


_GEMINI_REWRITES: dict[str, Rewrite] = {**SHAPE_REWRITES, "examples": _first_example}


def _gemini_node(schema: Schema) -> Schema:
    schema = _gemini_values(dict(schema))
    out, notes = keep_or_note(schema, _SCHEMA_KEYS, _QUIET, _GEMINI_REWRITES)
    if "format" in out and out["format"] not in _FORMATS.get(out.get("type"), ()):
        notes.append(constraint_note("format", out.pop("format")))
    _gemini_children(out)
    return add_notes(_give_type(out), notes)


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
        kinds = {_kind_of(v) for v in values}
        if "type" not in schema and len(kinds) == 1:
            schema["type"] = kinds.pop()
        if not all(isinstance(v, str) for v in values):
            add_notes(schema, [constraint_note("enum", schema.pop("enum"))])
    return schema


def _gemini_children(out: Schema) -> None:
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _gemini(v) for k, v in out["properties"].items()}
        if len(out["properties"]) > 1:
            out["propertyOrdering"] = list(out["properties"])
        if not out["properties"]:
            del out["properties"]
    if "required" in out:
        required = [k for k in out["required"] if k in out.get("properties", {})]
        out["required"] = required
        if not required:
            del out["required"]
    if out.get("type") == "array" or "items" in out:
        out["items"] = _gemini(out.get("items", {}))


def _give_type(out: Schema) -> Schema:
    """Every node needs a ``type`` (or ``anyOf``): infer it, or accept any JSON value."""
    if "type" in out or "anyOf" in out:
        return out
    if "properties" in out:
        return {"type": "object", **out}
    if "items" in out:
        return {"type": "array", **out}
    if "enum" in out:
        return {"type": "string", **out}
    return {"anyOf": [copy.deepcopy(arm) for arm in _ANY], "nullable": True, **out}


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string" if isinstance(value, str) else "null"


def gemini_json_schema(parameters: Schema) -> Schema:
    """Gemini ``parametersJsonSchema``: the canonical schema keeping only
    Google's listed keywords (the rest become notes), ``enum`` with strings and numbers only,
    and a ``$ref`` that has siblings (not allowed there) wrapped into a one-arm ``anyOf``."""
    cleaned: Schema = _json_clean(parameters)
    return cleaned


def _json_clean(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    schema = _json_values(dict(schema))
    out, notes = keep_or_note(schema, _JSON_KEYS, _JSON_QUIET, {})
    add_notes(out, notes)
    if "$ref" in out and len(out) > 1:
        out = {"anyOf": [{"$ref": out.pop("$ref")}], **out}
    return map_children(out, _json_clean)


def _json_values(schema: Schema) -> Schema:
    if "const" in schema:
        schema["enum"] = [schema.pop("const")]
    if schema.pop("nullable", None) is True:  # OpenAPI's nullable, from a dict definition
        if isinstance(schema.get("type"), str):
            schema["type"] = [schema["type"], "null"]
        else:
            add_notes(schema, ["May be null."])
    values = schema.get("enum")
    if isinstance(values, list) and not all(_kind_of(v) in _NUMERIC_OR_TEXT for v in values):
        add_notes(schema, [constraint_note("enum", schema.pop("enum"))])
    return schema


def _render_parameters(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    converted = gemini_schema(parameters)
    # A function without parameters leaves the key out: an empty object is refused.
    return {**head, "parameters": converted} if converted.get("properties") else head


def _render_json(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    return {**head, "parametersJsonSchema": gemini_json_schema(parameters)}


SCHEMA_DIALECTS = {"gemini": _render_parameters, "gemini-json": _render_json}
