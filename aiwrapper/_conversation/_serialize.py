"""How a tool's return value is written for the model, as text.

A rule on the ground floor of the package: the loop and ``LangMessages.add_tool_result`` both
write results this way. This module owns :func:`serialize_result`: a ``str`` is sent as it
is; anything else becomes compact JSON, with dataclasses, NamedTuples (as objects), mappings
(keys written as JSON would: ``True`` as ``"true"``), pydantic models (duck typed,
``model_dump(mode="json")``), Enum values, date and time types as ISO strings, UUID, Decimal
and Path as strings, sets (sorted), tuples, sequences, dict views and iterators as lists,
other numbers (``Fraction``, numpy scalars) as JSON numbers, arrays with ``tolist()`` as
lists, and bytes as base64. An object it does not know is written as ``str(obj)``.
"""

from __future__ import annotations

import base64
import collections.abc as cabc
import dataclasses
import datetime as dt
import decimal
import enum
import json
import math
import numbers
import pathlib
import uuid
from collections.abc import Callable
from typing import Any

from .._wire._jsontext import json_writer

__all__ = ["serialize_result", "to_jsonable"]


def serialize_result(value: Any) -> str:
    """Write a tool's return value as the text sent back to the model.

    Args:
        value: Whatever the tool returned.

    Returns:
        The string itself for a ``str``; compact JSON (``ensure_ascii=False``) otherwise.
    """
    if isinstance(value, str):
        return value
    if value.__class__ is int:  # the common result, written as JSON writes an int
        return int.__repr__(value)
    if _plain(value, _PLAIN_DEPTH):  # JSON data already: what to_jsonable would return
        return _COMPACT(value)
    return _COMPACT(to_jsonable(value))


# ``json.dumps(ensure_ascii=False, separators=(",", ":"))``, set up once: every tool result
# is written here.
_COMPACT = json_writer(allow_nan=True)
_LEAVES = frozenset({str, int, bool, type(None)})
_PLAIN_DEPTH = 32  # deeper plain data takes the general path, which checks each value


def _plain(value: Any, depth: int) -> bool:
    """Whether ``value`` is plain JSON data: dicts with str keys, lists, str, int, bool,
    None and finite floats, none a subclass (a NamedTuple or an Enum is written otherwise)."""
    kind = value.__class__
    if kind is list:
        return all(_plain_item(item, depth) for item in value)
    if kind is not dict:
        return kind in _LEAVES or (kind is float and math.isfinite(value))
    for key, item in value.items():  # the leaves checked here, without a call each
        if key.__class__ is not str:
            return False
        kind = item.__class__
        if kind not in _LEAVES and not _plain_item(item, depth):
            return False
    return True


def _plain_item(item: Any, depth: int) -> bool:
    kind = item.__class__
    if kind is float:
        return math.isfinite(item)
    return kind in _LEAVES or (depth > 0 and _plain(item, depth - 1))


def to_jsonable(value: Any) -> Any:
    """Convert a Python value into plain JSON data (the rule of :func:`serialize_result`).

    Args:
        value: Any Python value.

    Returns:
        dicts, lists, strings, numbers, booleans and ``None`` only.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return _NON_FINITE[str(value)]  # JSON has no NaN or infinities: named in a string
    if value is None or isinstance(value, (str, bool, int, float)):
        return value.value if isinstance(value, enum.Enum) else value
    for kinds, convert in _CONVERTERS:
        if isinstance(value, kinds):
            return convert(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: to_jsonable(v) for k, v in value._asdict().items()}
    for method, arguments in _DUCK_METHODS:  # pydantic models; numpy arrays and scalars
        found = getattr(value, method, None)
        if callable(found) and not isinstance(value, type):
            return to_jsonable(found(**arguments))
    if isinstance(value, _LISTS):
        return [to_jsonable(v) for v in value]
    return str(value)


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _mapping(value: cabc.Mapping[Any, Any]) -> dict[str, Any]:
    return {_key(k): to_jsonable(v) for k, v in value.items()}


def _key(key: Any) -> str:
    """An object key as JSON writes it: ``True`` -> ``"true"``, ``None`` -> ``"null"``."""
    if isinstance(key, str):
        return key
    plain = to_jsonable(key)
    return plain if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False)


def _unordered(value: cabc.Set[Any]) -> list[Any]:
    items = [to_jsonable(v) for v in value]
    return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))


_CONVERTERS: tuple[tuple[Any, Callable[[Any], Any]], ...] = (
    (enum.Enum, lambda v: to_jsonable(v.value)),
    ((dt.datetime, dt.date, dt.time), lambda v: v.isoformat()),
    ((uuid.UUID, decimal.Decimal, pathlib.PurePath), str),
    ((bytes, bytearray, memoryview), lambda v: base64.b64encode(bytes(v)).decode("ascii")),
    (cabc.Mapping, _mapping),
    (cabc.Set, _unordered),
    (numbers.Integral, int),
    (numbers.Real, float),
)
_LISTS = (cabc.Sequence, cabc.KeysView, cabc.ValuesView, cabc.ItemsView, cabc.Iterator)
# (lists, tuples, ranges, deques, dict views, generators and other iterators)
_DUCK_METHODS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("model_dump", {"mode": "json"}),
    ("tolist", {}),
)
