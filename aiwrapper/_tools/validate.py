"""Checking a model's arguments: the state of one validation pass and the shared checks.

This module owns what every node of a compiled schema (see :mod:`aiwrapper._tools.nodes`) needs
while it checks a value: where errors and coercions are collected, how JSON pointers are
built and how keyword constraints (bounds, lengths, pattern) are checked. The safe coercions
themselves live with the node that applies them; the entry point that checks a whole call's
arguments against a tool's compiled node is ``validate_arguments``, on the floor above both.

The coercion list is exhaustive:

- to an integer: an integral float (``3.0``) or a numeric string of integral value (``"42"``,
  ``"3.0"``); never ``"3.5"``, ``3.5`` or a boolean;
- to a number: an integer, or a numeric string; never a boolean, NaN or an infinity;
- to a boolean: exactly the strings ``"true"`` and ``"false"``; never ``1``/``0``;
- to an object or array: JSON text holding one;
- to an array: a single value (not ``null``), wrapped;
- to a string Enum (and a JSON Schema ``enum``): a unique case-insensitive match.

One more rule is not a coercion of a value but follows strict mode (a strict dialect):
there every property is required and an optional one is sent as nullable, so a model that
means "leave it out" sends ``null``. A ``null`` for an optional field whose own type does not
accept ``null`` therefore means "omitted": the key is dropped and the function's default
applies (recorded as a coercion). A required field, or one that accepts ``null``, gets the
``null`` as its value or error. The rule holds for every tool, strict or not: validation
does not know which dialect a call was made under (a conversation may move between
providers), and no other dialect lets ``null`` mean anything for such a field.

Each coercion applied is recorded as ``{"path", "from", "to"}``.
"""

from __future__ import annotations

import decimal
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "INVALID",
    "Coercion",
    "State",
    "check_constraints",
    "describe_value",
    "join_path",
]


class _Invalid:
    """Marker returned by a node when the value was refused (errors already recorded)."""

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Any = _Invalid()

Coercion = dict[str, Any]


@dataclass(slots=True)
class State:
    """Errors and coercions collected during one validation pass.

    Attributes:
        errors: ``{"path", "message"}`` for every refused value.
        coercions: ``{"path", "from", "to"}`` for every safe coercion applied.
        coerce: False while a union tries its arms without coercion first.
    """

    errors: list[dict[str, str]] = field(default_factory=list)
    coercions: list[Coercion] = field(default_factory=list)
    coerce: bool = True

    def fail(self, path: str, message: str) -> Any:
        """Record an error at ``path`` and return :data:`INVALID`."""
        self.errors.append({"path": path, "message": message})
        return INVALID

    def coerced(self, path: str, before: Any, after: Any) -> Any:
        """Record a coercion at ``path`` and return the coerced value."""
        self.coercions.append({"path": path, "from": before, "to": after})
        return after

    def mark(self) -> int:
        """Return a marker to ask :meth:`failed_since` later."""
        return len(self.errors)

    def failed_since(self, mark: int) -> bool:
        """Tell whether an error was recorded after ``mark``."""
        return len(self.errors) > mark


def join_path(path: str, key: str | int) -> str:
    """Append one JSON pointer token (escaping ``~`` and ``/``)."""
    token = str(key).replace("~", "~0").replace("/", "~1")
    return f"{path}/{token}"


def describe_value(value: Any) -> str:
    """Name a JSON value's type the way a model would read it in an error."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"number {_shorten(repr(value))}"
    if isinstance(value, str):
        return f"string {json.dumps(_shorten(value), ensure_ascii=False)}"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _shorten(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


_NUMBER_RULES: tuple[tuple[str, Callable[[float, float], bool], str], ...] = (
    ("minimum", lambda v, b: v >= b, "at least"),
    ("maximum", lambda v, b: v <= b, "at most"),
    ("exclusiveMinimum", lambda v, b: v > b, "greater than"),
    ("exclusiveMaximum", lambda v, b: v < b, "less than"),
)
_LENGTH_NAMES = {str: "characters", list: "items", dict: "properties"}
_LENGTH_KEYS = {
    str: ("minLength", "maxLength"),
    list: ("minItems", "maxItems"),
    dict: ("minProperties", "maxProperties"),
}


def check_constraints(value: Any, constraints: Mapping[str, Any], path: str, st: State) -> Any:
    """Check JSON Schema keyword constraints on an already typed value.

    Args:
        value: The JSON value (number, string, list or dict).
        constraints: JSON Schema keywords such as ``minimum`` or ``maxLength``.
        path: JSON pointer of the value.
        st: Where errors go.

    Returns:
        The value unchanged, or :data:`INVALID` after recording every violated constraint.
    """
    if not constraints:
        return value
    before = len(st.errors)
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        _check_number(value, constraints, path, st)
    elif isinstance(value, (str, list, dict)):
        _check_length(value, constraints, path, st)
    pattern = constraints.get("pattern")
    if isinstance(value, str) and pattern is not None and not _regex(pattern).search(value):
        st.fail(path, f"must match the pattern {pattern!r}")
    return INVALID if len(st.errors) > before else value


def _check_number(value: Any, constraints: Mapping[str, Any], path: str, st: State) -> None:
    for key, ok, words in _NUMBER_RULES:
        bound = constraints.get(key)
        if bound is not None and not ok(value, bound):
            st.fail(path, f"must be {words} {bound}, got {value}")
    step = constraints.get("multipleOf")
    if step and not _is_multiple(value, step):
        st.fail(path, f"must be a multiple of {step}, got {value}")


def _is_multiple(value: Any, step: Any) -> bool:
    try:
        if isinstance(value, decimal.Decimal):  # Decimal does not divide by a float
            return value % decimal.Decimal(str(step)) == 0
        return bool((value / step) == int(value / step))
    except (ArithmeticError, ValueError):  # a quotient beyond float or Decimal precision
        return False


def _check_length(
    value: str | list[Any] | dict[str, Any], constraints: Mapping[str, Any], path: str, st: State
) -> None:
    kind = type(value) if type(value) in _LENGTH_KEYS else str
    low_key, high_key = _LENGTH_KEYS[kind]
    noun = _LENGTH_NAMES[kind]
    low, high = constraints.get(low_key), constraints.get(high_key)
    if low is not None and len(value) < low:
        st.fail(path, f"must have at least {low} {noun}, got {len(value)}")
    if high is not None and len(value) > high:
        st.fail(path, f"must have at most {high} {noun}, got {len(value)}")
    if kind is list and constraints.get("uniqueItems") and _has_duplicates(value):
        st.fail(path, "items must be unique")


def _has_duplicates(items: Any) -> bool:
    seen = [json.dumps(i, sort_keys=True, default=str) for i in items]
    return len(set(seen)) != len(seen)


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)
