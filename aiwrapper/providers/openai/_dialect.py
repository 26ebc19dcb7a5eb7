"""OpenAI's tool declarations: ``openai`` (strict where lossless) and ``openai-strict``.

Both send the function envelope ``{"type": "function", "function": {...}}``. ``openai`` sends
the strict form (``"strict": true``) when the tool asks for it (``strict=True``) or, with
``strict=None``, when the strict post-pass (``_strict.py``) loses nothing; otherwise the plain
canonical schema. ``openai-strict`` is always strict.
"""

from __future__ import annotations

from typing import Any

from ._strict import StrictError, make_strict

__all__ = ["SCHEMA_DIALECTS"]

Schema = dict[str, Any]


def _function(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    if strict is True:
        return _strict_function(head, parameters, strict)
    function = {**head, "parameters": parameters}
    if strict is None:
        try:
            converted, lossless = make_strict(parameters)
        except StrictError:
            lossless = False
        if lossless:
            function = {**head, "parameters": converted, "strict": True}
    return {"type": "function", "function": function}


def _strict_function(head: Schema, parameters: Schema, strict: bool | None) -> Schema:
    function = {**head, "parameters": make_strict(parameters)[0], "strict": True}
    return {"type": "function", "function": function}


SCHEMA_DIALECTS = {"openai": _function, "openai-strict": _strict_function}
