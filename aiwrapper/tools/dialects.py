"""Provider dialects: the tool declaration each provider wants, from the canonical schema.

This module owns :func:`render`, which turns a tool's name, description and canonical JSON
Schema into the declaration of one dialect:

- ``openai``: ``{"type": "function", "function": {...}}``, strict when it converts losslessly
  (or when the tool says ``strict=True``); ``openai-strict``: always strict
  (see :mod:`aiwrapper.tools.strict`);
- ``anthropic``: ``input_schema`` is the canonical schema;
- ``gemini``: the OpenAPI-subset ``parameters``; ``gemini-json``: ``parametersJsonSchema``
  (both in :mod:`aiwrapper.tools.gemini`);
- ``ollama``: the OpenAI envelope with only the keys Ollama parses, the rest as notes.

A keyword a dialect cannot carry is never dropped silently: it becomes a sentence in the
description (:mod:`aiwrapper.tools.notes`). Only structural keys with no meaning left after
the transform (``$defs``, ``additionalProperties: false``, ``title`` for Ollama) go quietly.
"""

from __future__ import annotations

from typing import Any

from .gemini import gemini_json_schema, gemini_schema
from .notes import add_notes
from .strict import StrictError, make_strict
from .walk import SHAPE_REWRITES, Rewrite, inline_refs, keep_or_note, map_children

__all__ = ["DIALECTS", "render"]

Schema = dict[str, Any]
DIALECTS = ("openai", "openai-strict", "anthropic", "gemini", "gemini-json", "ollama")

# Ollama parses parameters into a fixed struct and silently drops every other key.
_OLLAMA_KEYS = {"type", "description", "enum", "items", "properties", "required", "anyOf"}
_QUIET = {"$schema", "$id", "$defs", "definitions", "$comment", "title"}


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
        The declaration, ready to send (it may share parts with ``parameters``).

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
        # No "strict": Tool.strict is OpenAI's. Anthropic's strict tools take another subset
        # (no recursion, no numeric bounds; whether it caps complexity is unconfirmed).
        return {**head, "input_schema": parameters}
    if dialect == "gemini":
        converted = gemini_schema(parameters)
        return {**head, "parameters": converted} if converted.get("properties") else head
    if dialect == "gemini-json":
        return {**head, "parametersJsonSchema": gemini_json_schema(parameters)}
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
