"""Types shared by the tool tests (module level, so annotations resolve normally)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, NamedTuple

from typing_extensions import NotRequired, Required, TypedDict


class Color(enum.Enum):
    """A paint color."""

    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclasses.dataclass
class Item:
    """A line of an order.

    Attributes:
        name: Product name.
    """

    name: str
    qty: int = 1
    note: str = dataclasses.field(default="", metadata={"description": "Free text."})


@dataclasses.dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Point(NamedTuple):
    x: float
    y: float = 0.0


class Movie(TypedDict, total=False):
    title: Required[str]
    year: int


class Address(TypedDict):
    street: str
    unit: NotRequired[str]


def jsonish(value: Any) -> Any:
    """Identity helper so tests read as data."""
    return value


GEMINI_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "items", "minItems",
    "maxItems", "properties", "required", "propertyOrdering", "minProperties",
    "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum", "anyOf",
    "default", "example",
}  # fmt: skip


def gemini_violations(schema: Any, where: str = "parameters") -> list[str]:
    """Every break of the Gemini ``Schema`` rules found in ``schema``."""
    found = [f"{where}: unknown key {key!r}" for key in schema if key not in GEMINI_KEYS]
    if "type" not in schema and "anyOf" not in schema:
        found.append(f"{where}: no type")
    if isinstance(schema.get("type"), list):
        found.append(f"{where}: type is a list")
    if schema.get("type") == "array" and "items" not in schema:
        found.append(f"{where}: array without items")
    if schema.get("properties") == {}:
        found.append(f"{where}: empty properties")
    if any(not isinstance(v, str) for v in schema.get("enum", [])):
        found.append(f"{where}: enum with a value that is not a string")
    missing = set(schema.get("required", [])) - set(schema.get("properties", {}))
    found.extend(f"{where}: required {key!r} is not a property" for key in sorted(missing))
    for key, sub in schema.get("properties", {}).items():
        found.extend(gemini_violations(sub, f"{where}.{key}"))
    if isinstance(schema.get("items"), dict):
        found.extend(gemini_violations(schema["items"], f"{where}[]"))
    for i, arm in enumerate(schema.get("anyOf", [])):
        found.extend(gemini_violations(arm, f"{where}|{i}"))
    return found


STRICT_REFUSED = {"allOf", "not", "if", "then", "else", "dependentRequired", "default"}


def strict_violations(schema: Any, where: str = "parameters") -> list[str]:
    """Every break of OpenAI's strict-mode rules found in ``schema``."""
    found = [f"{where}: {key!r} is not allowed" for key in schema if key in STRICT_REFUSED]
    if "$ref" in schema and len(schema) > 1:
        found.append(f"{where}: $ref with siblings")
    if not {"type", "anyOf", "$ref", "enum"} & set(schema):
        found.append(f"{where}: no type")
    if "properties" in schema:
        if schema.get("additionalProperties") is not False:
            found.append(f"{where}: object not closed")
        if schema.get("required") != list(schema["properties"]):
            found.append(f"{where}: not every property is required")
    subs = [*schema.get("properties", {}).items(), *schema.get("$defs", {}).items()]
    for key, sub in subs:
        found.extend(strict_violations(sub, f"{where}.{key}"))
    if isinstance(schema.get("items"), dict):
        found.extend(strict_violations(schema["items"], f"{where}[]"))
    for i, arm in enumerate(schema.get("anyOf", [])):
        found.extend(strict_violations(arm, f"{where}|{i}"))
    return found
