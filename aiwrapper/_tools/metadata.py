"""Parameter metadata: what ``Annotated[...]`` extras and defaults add to a schema.

This module owns reading the metadata attached to a type: a plain string (a description),
:class:`~aiwrapper._tools.context.Param`, and, by duck typing, ``annotated-types`` markers
(``Gt``, ``Ge``, ``Len``, ``Interval``...) and pydantic's ``Field`` (its ``description``,
``examples`` and ``metadata``). It also decides how a default value is shown in a schema.
Compiling the annotated type itself is left to :mod:`aiwrapper._tools.typemap`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import json
import pathlib
import uuid
from collections.abc import Iterable
from typing import Any

from .compound import UnionNode
from .nodes import Node

__all__ = ["apply_metadata", "jsonable_default"]

_BOUNDS = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusiveMinimum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}
_LENGTHS = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}


def apply_metadata(node: Node, metadata: Iterable[Any]) -> Node:
    """Return ``node`` with the descriptions and constraints found in ``Annotated`` extras.

    Args:
        node: The compiled node of the annotated type.
        metadata: The extras after the type in ``Annotated[T, ...]``.

    Returns:
        A copy of the node carrying the metadata (or the node itself when there is none).
    """
    meta: dict[str, Any] = {}
    constraints: dict[str, Any] = {}
    for marker in metadata:
        _read_marker(marker, _length_kind(node), meta, constraints)
    if not meta and not constraints:
        return node
    return node.with_extras(meta, constraints)


def _read_marker(marker: Any, kind: str, meta: dict[str, Any], cons: dict[str, Any]) -> None:
    if isinstance(marker, str):
        meta["description"] = marker
        return
    if isinstance(marker, type):
        return
    for attr, key in _BOUNDS.items():
        value = getattr(marker, attr, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            cons[key] = value
    low_key, high_key = _LENGTHS.get(kind, _LENGTHS["string"])
    for attr, key in (("min_length", low_key), ("max_length", high_key)):
        value = getattr(marker, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            cons[key] = value
    pattern = getattr(marker, "pattern", None)
    if isinstance(pattern, str):
        cons["pattern"] = pattern
    description = getattr(marker, "description", None)
    if isinstance(description, str) and description:
        meta["description"] = description
    examples = getattr(marker, "examples", None)
    shown = jsonable_default(examples) if isinstance(examples, list) and examples else None
    if shown is not None:  # examples that cannot be written as JSON are left out
        meta["examples"] = shown[0]
    nested = getattr(marker, "metadata", None)
    if isinstance(nested, list):  # pydantic FieldInfo keeps annotated-types markers here
        for inner in nested:
            _read_marker(inner, kind, meta, cons)


def _length_kind(node: Node) -> str:
    if isinstance(node, UnionNode):
        kinds = [arm.kind for arm in node.arms if arm.kind != "null"]
        return kinds[0] if kinds else "string"
    return node.kind


def jsonable_default(value: Any) -> tuple[Any] | None:
    """Show a default value in a schema.

    Args:
        value: The Python default.

    Returns:
        ``(json_value,)`` when it can be written as JSON, otherwise ``None`` (left out).
    """
    try:
        plain = _plain(value)
        json.dumps(plain)
    except (TypeError, ValueError):
        return None
    return (plain,)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal, pathlib.PurePath)):
        return str(value)
    if isinstance(value, (tuple, list, set, frozenset)):
        items = [_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value
