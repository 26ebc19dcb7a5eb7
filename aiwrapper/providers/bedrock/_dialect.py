"""Bedrock's tool declaration: the canonical schema, unchanged, under ``toolSpec.inputSchema.json``.

The Converse API takes JSON Schema for a tool's input and hands it to the model's own format,
so nothing is rewritten here; a model that cannot take a keyword answers with its own error.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_DIALECTS"]

Schema = dict[str, Any]


def _render(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    spec: Schema = {"name": head["name"]}
    if head.get("description"):
        spec["description"] = head["description"]  # Converse refuses an empty description
    spec["inputSchema"] = {"json": parameters}
    return {"toolSpec": spec}


SCHEMA_DIALECTS = {"bedrock": _render}
