"""serialize_result: the documented rule for every type."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import decimal
import enum
import fractions
import pathlib
import uuid
from typing import Any, NamedTuple, TypedDict

import pytest

from aiwrapper._tools import serialize_result


class Shade(enum.Enum):
    DARK = "dark"


class Rank(enum.IntEnum):
    TOP = 1


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
        (-7, "-7"),
        (10**30, "1000000000000000000000000000000"),
        (Rank.TOP, "1"),
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
        (bytearray(b"a"), '"YQ=="'),
        (Opaque(), '"<opaque>"'),
        ({1: Opaque()}, '{"1":"<opaque>"}'),
        ({True: 1, None: 2, 1.5: 3, Shade.DARK: 4}, '{"true":1,"null":2,"1.5":3,"dark":4}'),
        ({"a": 1}.keys(), '["a"]'),
        ({"a": 1}.items(), '[["a",1]]'),
        ((n * n for n in range(3)), "[0,1,4]"),
        (range(2), "[0,1]"),
        (collections.deque([Shade.DARK]), '["dark"]'),
        (fractions.Fraction(1, 4), "0.25"),
        (
            {"when": [dt.date(2024, 1, 2), (uuid.UUID(int=2),)], "tags": frozenset({"b", "a"})},
            '{"when":["2024-01-02",["00000000-0000-0000-0000-000000000002"]],"tags":["a","b"]}',
        ),
        (
            [Pair(1, "x"), Row(id=2), Box(1, set(), Shade.DARK)],
            '[{"a":1,"b":"x"},{"id":2},{"size":1,"tags":[],"shade":"dark"}]',
        ),
        (
            {"nested": {"deeper": [{3, 1}, b"x", pathlib.PurePosixPath("p")]}},
            '{"nested":{"deeper":[[1,3],"eA==","p"]}}',
        ),
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


class Matrix:
    """Stands in for a numpy array: known only by its ``tolist`` method."""

    def tolist(self) -> list[list[int]]:
        return [[1, 2], [3, 4]]


def test_array_like_values_are_written_as_lists() -> None:
    assert serialize_result({"m": Matrix()}) == '{"m":[[1,2],[3,4]]}'


def test_nested_pydantic_models_inside_containers() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Point(pydantic.BaseModel):
        x: int
        at: dt.datetime

    value = {"points": [Point(x=1, at=dt.datetime(2024, 1, 1, 12))], "pair": Pair(2, "y")}
    assert serialize_result(value) == (
        '{"points":[{"x":1,"at":"2024-01-01T12:00:00"}],"pair":{"a":2,"b":"y"}}'
    )
