"""``Decimal`` parameters: built from the digits a model sent, never through a binary float.

A ``Decimal``'s schema is a decimal number string, and validation also takes a JSON number.
Python's ``json`` turns ``0.1`` into the float nearest to it, so the digits would be lost
before any node saw them: for a tool with a ``Decimal`` parameter, the arguments are read
with every non-integer number as an ``ExactFloat``, a float that keeps the text it was read
from. Number nodes turn it back into a plain float; the ``Decimal`` node builds from its text.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Mapping
from typing import Any

from .nodes import Schema, StrNode
from .validate import State

__all__ = ["DECIMAL_PATTERN", "DecimalNode", "ExactFloat", "loads_exact", "wants_exact"]

DECIMAL_PATTERN = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"


class ExactFloat(float):
    """A float read from JSON text, keeping that text in ``text``."""

    __slots__ = ("text",)
    text: str


def _exact(text: str) -> ExactFloat:
    number = ExactFloat(text)
    number.text = text
    return number


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


_DECODER = json.JSONDecoder(parse_float=_exact, parse_constant=_refuse)


def loads_exact(text: str) -> Any:
    """Parse standard JSON, each non-integer number an ``ExactFloat``.

    Raises:
        ValueError: The text is not JSON, holds NaN or an infinity, or nests too deeply.
    """
    try:
        return _DECODER.decode(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def parse_decimal(text: str) -> decimal.Decimal:
    """A finite ``Decimal`` from its text.

    Raises:
        ValueError: Not a decimal number, or NaN or an infinity (not JSON numbers).
    """
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation as exc:
        raise ValueError(text) from exc
    if not number.is_finite():
        raise ValueError(text)
    return number


class DecimalNode(StrNode):
    """A ``Decimal``: a decimal number string, or a JSON number read from its digits."""

    def __init__(self) -> None:
        super().__init__(
            fmt={"pattern": DECIMAL_PATTERN},
            build=parse_decimal,
            expect="a decimal number (a string or a JSON number)",
        )

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return super()._convert(value, path, st)
        if isinstance(value, ExactFloat):
            return value.text
        try:  # a float given as a Python value: its shortest text, which reads back the same
            return repr(value) if isinstance(value, float) else str(value)
        except ValueError:  # an int past Python's digit limit for str()
            return self._refuse(value, path, st)


def wants_exact(parameters: Schema) -> bool:
    """Whether a tool's schema holds a ``Decimal``, whose numbers must be read exactly."""
    stack: list[Any] = [parameters]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if node.get("pattern") == DECIMAL_PATTERN:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
