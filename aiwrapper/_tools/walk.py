"""Walking a JSON Schema: the structural helpers every dialect transform shares.

This module owns copying a schema node with a function applied to each direct subschema,
inlining ``$ref`` pointers with recursion cut off after a few levels, and folding a
fixed-length tuple's ``prefixItems`` into one ``items`` schema. What a dialect keeps or drops
is left to each provider's dialect (see :mod:`aiwrapper._tools.dialects`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from .notes import add_notes, constraint_note

__all__ = [
    "RECURSION_LIMIT",
    "SHAPE_REWRITES",
    "Rewrite",
    "inline_refs",
    "keep_or_note",
    "map_children",
    "tuple_items",
    "words",
]

Schema = dict[str, Any]
# How a dialect carries one keyword it does not keep as it is: it may add keys to the reduced
# node and notes for the description.
Rewrite = Callable[[Any, Schema, list[str]], None]
RECURSION_LIMIT = 2  # how many times a recursive type is inlined before it is cut off


def map_children(schema: Schema, fn: Callable[[Any], Any]) -> Schema:
    """Copy a schema node, applying ``fn`` to each direct subschema."""
    out: Schema = {}
    for key, value in schema.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {k: fn(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "not", "propertyNames") and isinstance(
            value, dict
        ):
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
        A copy without ``$ref`` and without ``$defs``; a recursion cut off becomes an object
        whose description says so.
    """
    defs = {**root.get("definitions", {}), **root.get("$defs", {})}
    inlined: Schema = _inline(schema, defs, root, ())
    return inlined


def _inline(schema: Any, defs: Schema, root: Schema, stack: tuple[str, ...]) -> Any:
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if not isinstance(ref, str):
        out = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
        return map_children(out, lambda s: _inline(s, defs, root, stack))
    name = ref.rpartition("/")[2] if ref != "#" else "#"
    siblings = {k: v for k, v in schema.items() if k != "$ref"}
    target = root if ref == "#" else defs.get(name, {})
    if not isinstance(target, dict):  # a boolean schema: nothing to inline but "any value"
        target = {}
    if stack.count(name) >= RECURSION_LIMIT:
        stub: Schema = {"type": "object"}
        if siblings.get("description") or target.get("description"):
            stub["description"] = siblings.get("description") or target["description"]
        return add_notes(stub, [f"(A recursive {target.get('title', name)}; deeper levels cut.)"])
    return _inline({**target, **siblings}, defs, root, (*stack, name))


def tuple_items(arms: list[Any]) -> Schema:
    """One ``items`` schema for a tuple's positions: the common one, or ``anyOf`` of them."""
    distinct = [a for i, a in enumerate(arms) if a not in arms[:i]]
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}


def words(schema: Any) -> str:
    """Name a schema's type in a few words, for a note."""
    if not isinstance(schema, dict) or not schema:
        return "any JSON value"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind or schema.get("title") or "a value matching its schema")


def _note_item_order(value: Any, out: Schema, notes: list[str]) -> None:
    notes.append("Items in order: " + ", ".join(words(s) for s in value) + ".")
    out["items"] = tuple_items(value)


def _note_value_schema(value: Any, out: Schema, notes: list[str]) -> None:
    if isinstance(value, dict):  # ``true``/``false`` say nothing a model needs to read
        notes.append(f"Any keys; each value: {words(value)}.")


# Keywords no reduced dialect keeps whose meaning a note can still carry.
SHAPE_REWRITES: Mapping[str, Rewrite] = {
    "prefixItems": _note_item_order,
    "additionalProperties": _note_value_schema,
}


def keep_or_note(
    schema: Mapping[str, Any],
    keep: Collection[str],
    quiet: Collection[str],
    rewrites: Mapping[str, Rewrite] = SHAPE_REWRITES,
) -> tuple[Schema, list[str]]:
    """One node reduced to the keys a dialect ``keep``s, and notes for the rest.

    A key in ``rewrites`` is carried its own way, a ``quiet`` key is dropped without a word
    (identifiers, comments), any other becomes a sentence for the description, in key order.
    """
    notes: list[str] = []
    out: Schema = {}
    for key, value in schema.items():
        if key in keep:
            out[key] = value
        elif key in rewrites:
            rewrites[key](value, out, notes)
        elif key not in quiet:
            notes.append(constraint_note(key, value))
    return out, notes
