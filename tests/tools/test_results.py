"""serialize_result: the documented rule for every type."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import pathlib
import uuid
from typing import Any, NamedTuple, TypedDict

import pytest

from aiwrapper.tools import serialize_result


class Shade(enum.Enum):
    DARK = "dark"


class Pair(NamedTuple):
    a: int
    b: str


class Row(TypedDict):
    id: int


@dataclasses.dataclass
class Box:
    size: int
    tags: set[str]
    shade: Shade


class Opaque:
    def __str__(self) -> str:
        return "<opaque>"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain text", "plain text"),
        ("", ""),
        (None, "null"),
        (3, "3"),
        (2.5, "2.5"),
        (True, "true"),
        ({"a": [1, "é"]}, '{"a":[1,"é"]}'),
        (Row(id=1), '{"id":1}'),
        (Pair(1, "x"), '{"a":1,"b":"x"}'),
        (Box(2, {"b", "a"}, Shade.DARK), '{"size":2,"tags":["a","b"],"shade":"dark"}'),
        (Shade.DARK, '"dark"'),
        (dt.datetime(2024, 1, 2, 3, 4, 5), '"2024-01-02T03:04:05"'),
        (dt.date(2024, 1, 2), '"2024-01-02"'),
        (dt.time(9, 30), '"09:30:00"'),
        (uuid.UUID(int=1), '"00000000-0000-0000-0000-000000000001"'),
        (decimal.Decimal("1.10"), '"1.10"'),
        (pathlib.PurePosixPath("/a/b"), '"/a/b"'),
        ({3, 1, 2}, "[1,2,3]"),
        (frozenset({"z"}), '["z"]'),
        ((1, 2), "[1,2]"),
        (b"\x00\xff", '"AP8="'),
        (Opaque(), '"<opaque>"'),
        ({1: Opaque()}, '{"1":"<opaque>"}'),
    ],
)
def test_serialize_result(value: Any, expected: str) -> None:
    assert serialize_result(value) == expected


def test_pydantic_model_is_dumped_in_json_mode() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Event(pydantic.BaseModel):
        when: dt.date
        shade: Shade

    assert serialize_result(Event(when=dt.date(2024, 5, 6), shade=Shade.DARK)) == (
        '{"when":"2024-05-06","shade":"dark"}'
    )
