"""Tool.validate: successes, the exhaustive list of safe coercions, refusals and messages."""

from __future__ import annotations

import datetime as dt
import decimal
import pathlib
import uuid
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types
import pytest

from aiwrapper._errors import ToolArgumentsError
from aiwrapper._tools import Param, tool

from .helpers import Address, Color, Item, Level, Movie, Point, Tree

DECIMAL = "a decimal number (a string or a JSON number)"


def probe(annotation: Any, default: Any = ...) -> Any:
    def f(x: int) -> None:
        pass

    f.__annotations__ = {"x": annotation}
    if default is not ...:
        f.__defaults__ = (default,)
    return tool(f)


def ok(annotation: Any, value: Any) -> Any:
    return probe(annotation).validate({"x": value})["x"]


def errors(annotation: Any, value: Any) -> list[dict[str, str]]:
    with pytest.raises(ToolArgumentsError) as info:
        probe(annotation).validate({"x": value})
    return info.value.errors


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (str, "a", "a"),
        (int, 3, 3),
        (float, 2.5, 2.5),
        (bool, False, False),
        (None, None, None),
        (Any, {"free": [1]}, {"free": [1]}),
        (list[int], [1, 2], [1, 2]),
        (set[str], ["a", "b", "a"], {"a", "b"}),
        (frozenset[int], [1], frozenset({1})),
        (tuple[int, ...], [1, 2], (1, 2)),
        (tuple[int, str], [1, "a"], (1, "a")),
        (dict[str, int], {"a": 1}, {"a": 1}),
        (Optional[int], None, None),  # noqa: UP045 - the Optional spelling is under test
        (Union[int, str], "a", "a"),
        (Literal["a", "b"], "b", "b"),
        (Literal[1, 2], 2, 2),
        (Color, "green", Color.GREEN),
        (Level, 2, Level.HIGH),
        (
            dt.datetime,
            "2024-01-02T03:04:05Z",
            dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc),
        ),
        (dt.date, "2024-01-02", dt.date(2024, 1, 2)),
        (dt.time, "10:30:00", dt.time(10, 30)),
        (
            uuid.UUID,
            "123e4567-e89b-42d3-a456-426614174000",
            uuid.UUID("123e4567-e89b-42d3-a456-426614174000"),
        ),
        (decimal.Decimal, "1.25", decimal.Decimal("1.25")),
        (pathlib.Path, "/tmp/x", pathlib.Path("/tmp/x")),
        (Item, {"name": "pen", "qty": 2}, Item(name="pen", qty=2)),
        (Point, {"x": 1.0}, Point(1.0)),
        (Movie, {"title": "Heat"}, {"title": "Heat"}),
        (Address, {"street": "Main", "unit": "4"}, {"street": "Main", "unit": "4"}),
        (Tree, {"value": 1, "children": [{"value": 2}]}, Tree(1, [Tree(2)])),
        (list[Item], [{"name": "a"}], [Item(name="a")]),
    ],
)
def test_values_are_built_into_declared_types(annotation: Any, value: Any, expected: Any) -> None:
    assert ok(annotation, value) == expected


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (int, 3.0, 3),
        (int, "42", 42),
        (int, " -7 ", -7),
        (int, "3.0", 3),
        (int, "1e3", 1000),
        (float, 3, 3.0),
        (float, "2.5", 2.5),
        (bool, "true", True),
        (bool, "false", False),
        (list[int], "[1, 2]", [1, 2]),
        (Item, '{"name": "pen"}', Item(name="pen")),
        (list[int], 5, [5]),
        (list[str], "solo", ["solo"]),
        (Color, "RED", Color.RED),
        (Optional[int], "5", 5),  # noqa: UP045 - the Optional spelling is under test
        (Level, "2", Level.HIGH),
        (Literal[1, 2], "2", 2),
        (Literal[1, 2], 2.0, 2),
        (Literal[True], "true", True),
        (set[int], '[1, "2"]', {1, 2}),
        (tuple[int, str], '[1, "a"]', (1, "a")),
        (dict[str, int], '{"a": "1"}', {"a": 1}),
        (list[Item], {"name": "pen"}, [Item(name="pen")]),
        (Optional[list[int]], 4, [4]),  # noqa: UP045 - the Optional spelling is under test
    ],
)
def test_safe_coercions(annotation: Any, value: Any, expected: Any) -> None:
    assert ok(annotation, value) == expected


def test_coercions_are_recorded() -> None:
    made = probe(list[int])
    assert made.validate({"x": "[1, 2.0]"}) == {"x": [1, 2]}
    assert made.last_coercions == [
        {"path": "/x", "from": "[1, 2.0]", "to": [1, 2.0]},
        {"path": "/x/1", "from": 2.0, "to": 2},
    ]
    made.validate({"x": [3]})
    assert made.last_coercions == []


@pytest.mark.parametrize(
    ("annotation", "value", "message"),
    [
        (int, "3.5", 'expected an integer, got string "3.5"'),
        (int, 3.5, "expected an integer, got number 3.5"),
        (int, True, "expected an integer, got boolean true"),
        (int, "true", 'expected an integer, got string "true"'),
        (int, "3.0000000000000001", 'expected an integer, got string "3.0000000000000001"'),
        (int, "1e99999", 'expected an integer, got string "1e99999"'),
        (int, float("nan"), "expected an integer, got number nan"),
        (int, [3], "expected an integer, got an array"),
        (bool, 1, "expected a boolean, got number 1"),
        (bool, 0, "expected a boolean, got number 0"),
        (bool, "yes", 'expected a boolean, got string "yes"'),
        (bool, "1", 'expected a boolean, got string "1"'),
        (bool, "True", 'expected a boolean, got string "True"'),
        (bool, " true", 'expected a boolean, got string " true"'),
        (float, float("nan"), "expected a finite number, got number nan"),
        (float, float("inf"), "expected a finite number, got number inf"),
        (float, "1e400", 'expected a finite number, got string "1e400"'),
        (
            float,
            10**400,
            "expected a finite number, got number 1000000000000000000000000000000000000...",
        ),
        (str, ["a"], "expected a string, got an array"),
        (Literal[1, 2], True, "expected one of 1, 2, got boolean true"),
        (Literal["a", 1], "1", 'expected one of "a", 1, got string "1"'),
        (Color, "blue", 'expected one of "red", "green", got string "blue"'),
        (
            decimal.Decimal,
            "NaN",
            'expected a decimal number (a string or a JSON number), got string "NaN"',
        ),
        (
            decimal.Decimal,
            True,
            "expected a decimal number (a string or a JSON number), got boolean true",
        ),
        (float, "abc", 'expected a number, got string "abc"'),
        (float, False, "expected a number, got boolean false"),
        (str, 5, "expected a string, got number 5"),
        (list[int], None, "expected an array, got null"),
        (Literal["a", "b"], "c", 'expected one of "a", "b", got string "c"'),
        (Literal["a", "b"], "A", 'expected one of "a", "b", got string "A"'),
        (dt.date, "yesterday", 'expected an ISO 8601 date (YYYY-MM-DD), got string "yesterday"'),
        (uuid.UUID, "nope", 'expected a UUID string, got string "nope"'),
        (Optional[int], "x", 'expected an integer or null, got string "x"'),  # noqa: UP045 - the Optional spelling is under test
        (Union[int, bool], "x", 'expected an integer or a boolean, got string "x"'),
        (tuple[int, str], [1], "expected an array of exactly 2 items, got 1 items"),
        (tuple[int, str], "ab", 'expected an array of exactly 2 items, got string "ab"'),
        (dict[str, int], [1], "expected an object, got an array"),
        (Item, "not json", 'expected an object, got string "not json"'),
    ],
)
def test_refusals_name_what_was_expected(annotation: Any, value: Any, message: str) -> None:
    assert errors(annotation, value) == [{"path": "/x", "message": message}]


def test_case_insensitive_enum_match_must_be_unique() -> None:
    import enum

    class Mode(enum.Enum):
        A = "a"
        BIG_A = "A"

    assert ok(Mode, "A") is Mode.BIG_A
    assert errors(Mode, "Ä") == [
        {"path": "/x", "message": 'expected one of "a", "A", got string "Ä"'}
    ]


def test_decimal_bounds_are_checked_on_the_number() -> None:
    price = Annotated[decimal.Decimal, Param(ge=0, lt=10)]
    assert ok(price, "9.99") == decimal.Decimal("9.99")
    assert errors(price, "-0.01") == [{"path": "/x", "message": "must be at least 0, got -0.01"}]
    assert errors(price, "10") == [{"path": "/x", "message": "must be less than 10, got 10"}]
    cents = Annotated[decimal.Decimal, annotated_types.MultipleOf(0.05)]
    assert ok(cents, "0.15") == decimal.Decimal("0.15")
    assert errors(cents, "0.13") == [
        {"path": "/x", "message": "must be a multiple of 0.05, got 0.13"}
    ]


def test_constraints_are_checked() -> None:
    assert errors(Annotated[int, Param(ge=1, le=5)], 9) == [
        {"path": "/x", "message": "must be at most 5, got 9"}
    ]
    assert errors(Annotated[float, Param(gt=0)], 0) == [
        {"path": "/x", "message": "must be greater than 0, got 0.0"}
    ]
    assert errors(Annotated[str, Param(max_length=3)], "abcd") == [
        {"path": "/x", "message": "must have at most 3 characters, got 4"}
    ]
    assert errors(Annotated[str, Param(pattern="^[a-z]+$")], "A1") == [
        {"path": "/x", "message": "must match the pattern '^[a-z]+$'"}
    ]
    assert errors(Annotated[list[int], Param(min_length=2)], [1]) == [
        {"path": "/x", "message": "must have at least 2 items, got 1"}
    ]


def test_every_error_is_reported_with_its_pointer() -> None:
    @tool
    def order(items: list[Item], rush: bool = False) -> None:
        pass

    with pytest.raises(ToolArgumentsError) as info:
        order.validate({"items": [{"name": "a", "qty": "many"}, {"qty": 1, "size": 3}], "x": 1})
    assert info.value.tool_name == "order"
    assert info.value.errors == [
        {"path": "/items/0/qty", "message": 'expected an integer, got string "many"'},
        {"path": "/items/1/size", "message": "unknown field 'size'; valid fields: name, qty, note"},
        {"path": "/items/1/name", "message": "missing required field (expected a string)"},
        {"path": "/x", "message": "unknown field 'x'; valid fields: items, rush"},
    ]
    text = str(info.value)
    assert text.startswith("Invalid arguments for 'order': /items/0/qty: expected an integer")
    assert "/x: unknown field 'x'" in text


def test_missing_required_parameter_points_at_it() -> None:
    @tool
    def f(city: str, days: int = 1) -> None:
        pass

    with pytest.raises(ToolArgumentsError) as info:
        f.validate({})
    assert info.value.errors == [
        {"path": "/city", "message": "missing required field (expected a string)"}
    ]


def test_validate_does_not_fill_defaults() -> None:
    @tool
    def f(city: str, days: int = 1, item: Item | None = None) -> None:
        pass

    assert f.validate({"city": "Oslo"}) == {"city": "Oslo"}


def test_null_for_an_optional_non_nullable_field_means_default() -> None:
    @tool
    def f(city: str, days: int = 1) -> None:
        pass

    assert f.validate({"city": "Oslo", "days": None}) == {"city": "Oslo"}
    assert f.last_coercions == [
        {"path": "/days", "from": None, "to": "(omitted: the default applies)"}
    ]
    with pytest.raises(ToolArgumentsError):
        f.validate({"city": None})


def test_json_text_arguments() -> None:
    @tool
    def f(n: int = 0) -> None:
        pass

    assert f.validate('{"n": 2}') == {"n": 2}
    assert f.validate("") == {}
    with pytest.raises(ToolArgumentsError) as info:
        f.validate("{not json")
    assert info.value.errors[0]["path"] == ""
    assert info.value.errors[0]["message"].startswith("arguments are not valid JSON")
    with pytest.raises(ToolArgumentsError) as info:
        f.validate("[1]")
    assert info.value.errors == [
        {"path": "", "message": "expected a JSON object of arguments, got an array. You sent: [1]"}
    ]
    with pytest.raises(ToolArgumentsError, match="NaN is not JSON"):
        f.validate('{"n": NaN}')
    with pytest.raises(ToolArgumentsError, match=r"You sent: \[\[\[.*\(30000 characters\)"):
        f.validate("[" * 15_000 + "]" * 15_000)


def test_pointer_escapes_slash_and_tilde() -> None:
    made = probe(dict[str, int])
    with pytest.raises(ToolArgumentsError) as info:
        made.validate({"x": {"a/b~c": "z"}})
    assert info.value.errors[0]["path"] == "/x/a~1b~0c"


def test_pydantic_model_is_checked_then_built() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Pet(pydantic.BaseModel):
        name: str
        age: int = pydantic.Field(default=0, ge=0)

    @tool
    def adopt(pet: Pet) -> str:
        return pet.name

    built = adopt.validate({"pet": {"name": "Rex", "age": "3"}})["pet"]
    assert isinstance(built, Pet)
    assert (built.name, built.age) == ("Rex", 3)
    with pytest.raises(ToolArgumentsError) as info:
        adopt.validate({"pet": {"name": "Rex", "age": -1, "color": "brown"}})
    assert info.value.errors == [
        {"path": "/pet/age", "message": "must be at least 0, got -1"},
        {"path": "/pet/color", "message": "unknown field 'color'; valid fields: name, age"},
    ]


def test_dataclass_post_init_errors_are_reported() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Span:
        start: int
        end: int

        def __post_init__(self) -> None:
            if self.end < self.start:
                raise ValueError("end before start")

    assert errors(Span, {"start": 2, "end": 1}) == [
        {"path": "/x", "message": "invalid Span: end before start"}
    ]


def test_coercion_list_is_exhaustive_for_scalars() -> None:
    """Every JSON value of the wrong type, tried against every scalar: only the listed
    coercions pass."""
    values: list[Any] = [None, True, False, 0, 1, 2.5, 3.0, "", "x", "2", "2.5", "true", [1], {}]
    passed = {
        scalar.__name__: [v for v in values if _accepts(scalar, v)]
        for scalar in (int, float, bool, str)
    }
    assert passed == {
        "int": [0, 1, 3.0, "2"],
        "float": [0, 1, 2.5, 3.0, "2", "2.5"],
        "bool": [True, False, "true"],
        "str": ["", "x", "2", "2.5", "true"],
    }


def _accepts(annotation: Any, value: Any) -> bool:
    try:
        probe(annotation).validate({"x": value})
    except ToolArgumentsError:
        return False
    return True


def test_union_reports_the_closest_arm() -> None:
    made = probe(Union[Item, Point])
    assert errors(Union[Item, Point], {"x": "1", "y": "two"}) == [
        {"path": "/x/y", "message": 'expected a number, got string "two"'}
    ]
    assert errors(Union[Item, Point], {"name": "pen", "qty": "a"}) == [
        {"path": "/x/qty", "message": 'expected an integer, got string "a"'}
    ]
    assert made.validate({"x": {"x": "1"}})["x"] == Point(1.0)


def test_unknown_keys_are_refused_at_every_depth_naming_the_valid_ones() -> None:
    @tool
    def f(order: dict[str, list[Item]], where: Address, films: list[Movie]) -> None:
        pass

    with pytest.raises(ToolArgumentsError) as info:
        f.validate(
            {
                "order": {"a": [{"name": "x", "colour": 1}]},
                "where": {"street": "Main", "zip": 1},
                "films": [{"title": "Heat", "actor": "x"}],
            }
        )
    assert info.value.errors == [
        {
            "path": "/order/a/0/colour",
            "message": "unknown field 'colour'; valid fields: name, qty, note",
        },
        {"path": "/where/zip", "message": "unknown field 'zip'; valid fields: street, unit"},
        {"path": "/films/0/actor", "message": "unknown field 'actor'; valid fields: title, year"},
    ]


def test_literal_keys_of_a_mapping_are_checked() -> None:
    scores = dict[Literal["home", "away"], int]
    assert ok(scores, {"home": "2"}) == {"home": 2}
    assert errors(scores, {"home": 1, "draw": 0}) == [
        {
            "path": "/x/draw",
            "message": 'key \'draw\' is not allowed; expected one of "home", "away"',
        }
    ]


def test_missing_nested_field_points_at_the_field() -> None:
    @tool
    def order(items: list[Item], where: Address) -> None:
        pass

    with pytest.raises(ToolArgumentsError) as info:
        order.validate({"items": [{"name": "a"}, {"qty": 2}], "where": {}})
    assert info.value.errors == [
        {"path": "/items/1/name", "message": "missing required field (expected a string)"},
        {"path": "/where/street", "message": "missing required field (expected a string)"},
    ]


def test_validate_leaves_optional_fields_out_at_every_depth() -> None:
    @tool
    def f(film: Movie, where: Address, flag: bool = False) -> None:
        pass

    assert f.validate({"film": {"title": "Heat"}, "where": {"street": "Main"}}) == {
        "film": {"title": "Heat"},
        "where": {"street": "Main"},
    }


def test_null_means_omitted_only_where_null_is_not_a_value() -> None:
    @tool
    def f(
        film: Movie,
        item: Item | None = None,
        limit: int | None = 10,
        n: int = 1,
    ) -> None:
        pass

    # OpenAI strict sends null for what it leaves out: year and n are dropped, limit keeps None.
    args = {"film": {"title": "Heat", "year": None}, "item": {"name": "a", "qty": None}}
    assert f.validate({**args, "limit": None, "n": None}) == {
        "film": {"title": "Heat"},
        "item": Item(name="a"),
        "limit": None,
    }
    assert [c["path"] for c in f.last_coercions] == ["/film/year", "/item/qty", "/n"]
    with pytest.raises(ToolArgumentsError) as info:
        f.validate({"film": {"title": None}})
    assert info.value.errors == [{"path": "/film/title", "message": "expected a string, got null"}]


def test_arguments_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(ToolArgumentsError) as info:
        probe(int).validate(b'{"x": "\xff"}')
    assert info.value.errors[0]["message"].startswith("arguments are not valid JSON")


def test_pydantic_nested_models_and_field_constraints() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Line(pydantic.BaseModel):
        sku: Annotated[str, pydantic.Field(min_length=3)]
        qty: Annotated[int, annotated_types.Ge(1)] = 1

    class Order(pydantic.BaseModel):
        lines: list[Line]
        note: str | None = None

    @tool
    def place(order: Order) -> None:
        pass

    built = place.validate({"order": '{"lines": [{"sku": "abc", "qty": "2"}]}'})["order"]
    assert built == Order(lines=[Line(sku="abc", qty=2)])
    with pytest.raises(ToolArgumentsError) as info:
        place.validate({"order": {"lines": [{"sku": "ab", "qty": 0, "x": 1}], "note": 5}})
    assert info.value.errors == [
        {"path": "/order/lines/0/sku", "message": "must have at least 3 characters, got 2"},
        {"path": "/order/lines/0/qty", "message": "must be at least 1, got 0"},
        {"path": "/order/lines/0/x", "message": "unknown field 'x'; valid fields: sku, qty"},
        {"path": "/order/note", "message": "expected a string or null, got number 5"},
    ]
