"""OpenAI strict mode's size limits, checked before a schema is sent strict.

This module owns :func:`check_limits`. The limits: at most 5000 object properties in all, 10
levels of nesting, 120,000 characters of property names, definition names and enum values
together, 1000 enum values in all, and 15,000 characters for one string enum of more than
250 values. OpenAI documents the numbers (older, lower ones still circulate; the current ones
are repeated by third-party references); it does not say how nesting is counted
(unconfirmed, see community.openai.com "Measuring maximum depth and object properties"), so
every object is counted as one level, ``$ref`` not followed (each definition is measured from
its own root), and the ``null`` that strict mode adds to an optional enum counts as a value.
A schema over a limit is refused by OpenAI with a 400 at request time, so it is refused here
first (:class:`LimitError`, turned into a
``StrictError`` of ``_strict.py``, so ``strict=None`` sends the plain schema).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["LimitError", "check_limits"]

MAX_PROPERTIES = 5000
MAX_DEPTH = 10
MAX_CHARS = 120_000
MAX_ENUM_VALUES = 1000
LARGE_ENUM, LARGE_ENUM_CHARS = 250, 15_000


class LimitError(ValueError):
    """Raised when a strict schema is over one of OpenAI's size limits.

    Attributes:
        where: The parameter (path inside it) over a limit; empty for a total.
        reason: Which limit, and by how much.
    """

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(reason)
        self.where = where
        self.reason = reason


@dataclass(slots=True)
class _Size:
    properties: int = 0
    chars: int = 0
    enum_values: int = 0


def check_limits(schema: dict[str, Any]) -> None:
    """Refuse a strict schema over one of OpenAI's size limits.

    Args:
        schema: The strict parameters schema (``$defs`` included).

    Raises:
        LimitError: Naming the parameter (or the whole schema) and the limit.
    """
    size = _Size()
    _measure(schema, "", 0, size)
    for name, definition in schema.get("$defs", {}).items():
        size.chars += len(name)
        _measure(definition, name, 0, size)
    for count, limit, what in (
        (size.properties, MAX_PROPERTIES, "object properties"),
        (size.chars, MAX_CHARS, "characters of names and enum values"),
        (size.enum_values, MAX_ENUM_VALUES, "enum values"),
    ):
        if count > limit:
            raise LimitError("", f"it has {count} {what}; the limit is {limit}")


def _measure(schema: Any, where: str, depth: int, size: _Size) -> None:
    if not isinstance(schema, dict):
        return
    props = schema.get("properties")
    if isinstance(props, dict):
        depth += 1
        if depth > MAX_DEPTH:
            raise LimitError(where, f"objects nest more than {MAX_DEPTH} levels deep")
        size.properties += len(props)
        for key, sub in props.items():
            size.chars += len(key)
            _measure(sub, f"{where}.{key}" if where else key, depth, size)
    values = schema.get("enum")
    if isinstance(values, list):
        _count_enum(values, where, size)
    if isinstance(schema.get("items"), dict):
        _measure(schema["items"], f"{where}[]", depth, size)
    for arm in schema.get("anyOf", ()):
        _measure(arm, where, depth, size)


def _count_enum(values: list[Any], where: str, size: _Size) -> None:
    text = sum(len(v) for v in values if isinstance(v, str))
    size.enum_values += len(values)
    size.chars += text
    if len(values) > LARGE_ENUM and text > LARGE_ENUM_CHARS:
        reason = f"an enum of {len(values)} strings totals {text} characters (limit 15000)"
        raise LimitError(where, reason)
