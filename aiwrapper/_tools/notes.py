"""Constraint notes: how a keyword a dialect cannot carry is kept as words in a description.

This module owns the wording used when a provider's schema dialect drops a keyword
(``exclusiveMinimum: 0`` becomes "Must be > 0."), so no constraint disappears silently.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["add_notes", "constraint_note"]

_TEMPLATES = {
    "minimum": "Must be >= {}.",
    "maximum": "Must be <= {}.",
    "exclusiveMinimum": "Must be > {}.",
    "exclusiveMaximum": "Must be < {}.",
    "multipleOf": "Must be a multiple of {}.",
    "minLength": "At least {} characters.",
    "maxLength": "At most {} characters.",
    "pattern": "Must match the regular expression {}.",
    "format": "Format: {}.",
    "minItems": "At least {} items.",
    "maxItems": "At most {} items.",
    "uniqueItems": "Items must be unique.",
    "minProperties": "At least {} properties.",
    "maxProperties": "At most {} properties.",
    "default": "Default: {}.",
    "examples": "Examples: {}.",
    "const": "Must be {}.",
    "enum": "Allowed values: {}.",
    "keys": "Allowed keys: {}.",
}


def constraint_note(key: str, value: Any) -> str:
    """Phrase one dropped keyword as a sentence for a description.

    Args:
        key: The JSON Schema keyword.
        value: Its value.

    Returns:
        The sentence, e.g. ``"Must be > 0."``.
    """
    if key == "propertyNames" and isinstance(value, dict) and isinstance(value.get("enum"), list):
        key, value = "keys", value["enum"]
    if key in ("enum", "examples", "keys") and isinstance(value, list):
        shown = ", ".join(json.dumps(v, ensure_ascii=False) for v in value)
    elif key in ("default", "const", "pattern"):
        shown = json.dumps(value, ensure_ascii=False)
    else:
        shown = str(value)
    template = _TEMPLATES.get(key, key + ": {}.")
    return template.format(shown)


def add_notes(schema: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Append sentences to a schema's ``description`` (in place) and return the schema."""
    if notes:
        text = " ".join([schema.get("description", "").strip(), *notes]).strip()
        schema["description"] = text
    return schema
