"""Ollama's tool declaration: the function envelope with only the keys Ollama parses.

Ollama reads ``parameters`` into a fixed struct and silently drops every other key, so the
schema is reduced to those keys with ``$ref`` inlined; ``oneOf`` becomes ``anyOf`` and
``const`` a one-value ``enum``. Any other keyword becomes a sentence in the description;
only structural keys with no meaning left (``$defs``, ``title``) go quietly.
"""

from __future__ import annotations

from typing import Any

from ..._tools.notes import add_notes
from ..._tools.walk import SHAPE_REWRITES, Rewrite, inline_refs, keep_or_note, map_children

__all__ = ["SCHEMA_DIALECTS", "ollama_schema"]

Schema = dict[str, Any]

_OLLAMA_KEYS = {"type", "description", "enum", "items", "properties", "required", "anyOf"}
_QUIET = {"$schema", "$id", "$defs", "definitions", "$comment", "title"}


def ollama_schema(parameters: Schema) -> Schema:
    """Reduce a canonical schema to the keys Ollama parses, refs inlined."""
    reduced: Schema = _ollama(inline_refs(parameters, parameters))
    return reduced


def _ollama(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    out, notes = keep_or_note(schema, _OLLAMA_KEYS, _QUIET, _OLLAMA_REWRITES)
    return add_notes(map_children(out, _ollama), notes)


def _one_of_as_any_of(value: Any, out: Schema, notes: list[str]) -> None:
    out["anyOf"] = value


def _const_as_enum(value: Any, out: Schema, notes: list[str]) -> None:
    out["enum"] = [value]


_OLLAMA_REWRITES: dict[str, Rewrite] = {
    **SHAPE_REWRITES,
    "oneOf": _one_of_as_any_of,
    "const": _const_as_enum,
}


def _render(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    return {"type": "function", "function": {**head, "parameters": ollama_schema(parameters)}}


SCHEMA_DIALECTS = {"ollama": _render}
