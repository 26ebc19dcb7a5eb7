"""How a tool's return value is written for the model (DESIGN.md "Results for the model").

This module owns :func:`serialize_result`: a ``str`` is sent as it is; anything else becomes
compact JSON, with dataclasses, NamedTuples (as objects), mappings, pydantic models (duck
typed, ``model_dump(mode="json")``), Enum values, date and time types as ISO strings, UUID,
Decimal and Path as strings, sets and tuples as lists and bytes as base64. An object it does
not know is written as ``str(obj)``.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import enum
import json
import pathlib
import uuid
from collections.abc import Mapping
from typing import Any

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
    return json.dumps(to_jsonable(value), ensure_ascii=False, separators=(",", ":"))


def to_jsonable(value: Any) -> Any:
    """Convert a Python value into plain JSON data (the rule of :func:`serialize_result`).

    Args:
        value: Any Python value.

    Returns:
        dicts, lists, strings, numbers, booleans and ``None`` only.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal, pathlib.PurePath)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: to_jsonable(v) for k, v in value._asdict().items()}
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return to_jsonable(dump(mode="json"))
    if isinstance(value, Mapping):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        items = [to_jsonable(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return str(value)
