"""Anthropic's tool declaration: the canonical schema, unchanged, as ``input_schema``.

The Messages API takes JSON Schema as it is (``$defs`` and ``$ref`` included), so nothing
is rewritten or noted.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_DIALECTS"]

Schema = dict[str, Any]


def _render(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    # No "strict" key: Tool.strict is OpenAI's. Anthropic's strict tools take another subset
    # (no recursion, no numeric bounds; whether it caps complexity is unconfirmed).
    return {**head, "input_schema": parameters}


SCHEMA_DIALECTS = {"anthropic": _render}
