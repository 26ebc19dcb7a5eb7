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
