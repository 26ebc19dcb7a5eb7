"""The OpenAI strict-mode post-pass over a canonical schema.

This module owns :func:`make_strict`: every object closed, every property required, optional
properties made nullable, defaults and examples dropped, ``$ref`` nodes with sibling keys
inlined, ``const`` turned into a one-value ``enum``. Length, uniqueness and property-count
keywords and unsupported string formats are not part of the strict subset: they move into the
description as notes, which marks the conversion lossy (``strict=None`` then keeps the plain
schema). An optional field that accepts ``null`` itself and has a default other than ``None``
is lossy too: strict mode makes the model send it, so its default can never be asked for.
What strict mode cannot express at all (a free-form ``dict``, ``Any``, a fixed-length
``tuple``, ``allOf``/``not``/conditionals, a schema over OpenAI's size limits, see
``_limits.py``) raises :class:`StrictError` naming the parameter.
"""

from __future__ import annotations

from typing import Any

from ..._tools.dialects import DialectError
from ..._tools.notes import add_notes, constraint_note
from ._limits import LimitError, check_limits

__all__ = ["StrictError", "make_strict"]

Schema = dict[str, Any]

_FATAL = {
    "allOf": "allOf",
    "not": "not",
    "if": "if/then/else",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "patternProperties": "patternProperties",
    "propertyNames": "propertyNames",
    "prefixItems": "a fixed-length tuple (prefixItems)",
    "contains": "contains",
}
_NOTED = ("minLength", "maxLength", "uniqueItems", "minProperties", "maxProperties")
_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
_DROPPED = ("default", "examples", "$schema")
_MISSING = object()


class StrictError(DialectError):
    """Raised when a schema cannot be expressed in OpenAI strict mode.

    Attributes:
        where: The parameter (and the path inside it) that cannot be strict.
        reason: Why.
    """

    def __init__(self, where: str, reason: str) -> None:
        subject = f"parameter {where!r}" if where else "the schema"
        super().__init__(f"{subject} cannot be used in OpenAI strict mode: {reason}")
        self.where = where
        self.reason = reason


class _Strict:
    def __init__(self, defs: dict[str, Schema]) -> None:
        self.defs = defs
        self.done: dict[str, Schema] = {}
        self.lossy = False

    def node(self, schema: Any, where: str) -> Schema:
        if not isinstance(schema, dict):
            raise StrictError(where, "a boolean schema")
        ref = schema.get("$ref")
        siblings = {k: v for k, v in schema.items() if k != "$ref" and k not in _DROPPED}
        if isinstance(ref, str) and siblings:
            return self.node({**self._target(ref), **siblings}, where)
        if isinstance(ref, str):
            self._visit_ref(ref, where)
            return {"$ref": ref}
        for key, words in _FATAL.items():
            if key in schema:
                raise StrictError(where, f"uses {words}")
        out = {k: v for k, v in schema.items() if k not in _DROPPED}
        self._note_unsupported(out)
        if "const" in out:
            out["enum"] = [out.pop("const")]
        if isinstance(out.get("anyOf"), list):
            out["anyOf"] = [self.node(arm, where) for arm in out["anyOf"]]
            return out
        if "type" not in out and "enum" not in out:
            raise StrictError(where, "accepts any value (Any); declare a type")
        return self._typed(out, where)

    def _typed(self, out: Schema, where: str) -> Schema:
        types = out.get("type")
        kinds = types if isinstance(types, list) else [types]
        if "object" in kinds:
            return self.object(out, where)
        if "array" in kinds:
            if "items" not in out:
                raise StrictError(where, "an array without an item type; declare list[T]")
            out["items"] = self.node(out["items"], f"{where}[]")
        return out

    def object(self, out: Schema, where: str) -> Schema:
        props = out.get("properties") or {}
        extra = out.get("additionalProperties")
        if isinstance(extra, dict) or extra is True or ("properties" not in out and extra is None):
            raise StrictError(where, "a free-form object (dict); declare its fields")
        required = set(out.get("required", []))
        new_props: Schema = {}
        for key, sub in props.items():
            path = key if not where else f"{where}.{key}"
            strict_sub = self.node(sub, path)
            if key not in required and _default_unreachable(sub):
                self.lossy = True
            new_props[key] = strict_sub if key in required else _nullable(strict_sub)
        out["properties"] = new_props
        out["required"] = list(new_props)
        out["additionalProperties"] = False
        return out

    def _note_unsupported(self, out: Schema) -> None:
        notes = [constraint_note(k, out.pop(k)) for k in _NOTED if k in out]
        if "format" in out and out["format"] not in _FORMATS:
            notes.append(constraint_note("format", out.pop("format")))
        if notes:
            self.lossy = True
            add_notes(out, notes)

    def _target(self, ref: str) -> Schema:
        name = ref.rpartition("/")[2]
        if not ref.startswith("#/$defs/") or name not in self.defs:
            raise StrictError(ref, "an unresolvable $ref")
        return self.defs[name]

    def _visit_ref(self, ref: str, where: str) -> None:
        if ref == "#":
            return
        name = ref.rpartition("/")[2]
        if name not in self.done:
            self.done[name] = {}  # placeholder: recursive types come back here
            self.done[name] = self.node(self._target(ref), f"{where} ({name})")


def _default_unreachable(schema: Any) -> bool:
    """An optional field that accepts ``null`` itself: in strict mode the model must send it,
    and its ``null`` is a value, so a default other than ``None`` can never be asked for."""
    return _accepts_null(schema) and schema.get("default", _MISSING) is not None


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    arms = schema.get("anyOf", schema.get("oneOf"))
    return isinstance(arms, list) and any(_accepts_null(arm) for arm in arms)


def _nullable(schema: Schema) -> Schema:
    if isinstance(schema.get("anyOf"), list):
        if {"type": "null"} not in schema["anyOf"]:
            schema["anyOf"].append({"type": "null"})
        return schema
    if "$ref" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "null":
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


def make_strict(parameters: Schema) -> tuple[Schema, bool]:
    """Convert a canonical parameters schema to OpenAI's strict subset.

    Args:
        parameters: The tool's canonical JSON Schema (an object at the root).

    Returns:
        The strict schema and whether the conversion was lossless (no notes were needed).

    Raises:
        StrictError: When a part of the schema cannot be strict, naming the parameter.
    """
    if parameters.get("type") != "object":
        raise StrictError("", "the root must be an object")
    converter = _Strict(parameters.get("$defs", {}))
    root = {k: v for k, v in parameters.items() if k != "$defs"}
    out = converter.object(root, "")
    for name in converter.defs:
        converter._visit_ref(f"#/$defs/{name}", name)
    if converter.done:
        out["$defs"] = {name: converter.done[name] for name in converter.defs}
    try:
        check_limits(out)
    except LimitError as exc:
        raise StrictError(exc.where, exc.reason) from exc
    return out, not converter.lossy
