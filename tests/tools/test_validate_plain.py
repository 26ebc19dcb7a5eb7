"""Tool.validate's one-pass check: arguments whose fields all hold their plain type.

An object whose fields are unconstrained ``int``, ``str`` and ``bool`` parameters takes such
arguments as they are (a copy); every other value must still get the full check, with the
same errors and coercions as before.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import pytest

from aiwrapper._errors import ToolArgumentsError
from aiwrapper._tools import Param, tool


@tool
def plain(a: int, b: str, c: bool = False) -> None:
    """Take plain values."""


def errors(arguments: dict[str, Any]) -> list[dict[str, str]]:
    with pytest.raises(ToolArgumentsError) as info:
        plain.validate(arguments)
    return info.value.errors


def test_plain_arguments_come_back_equal_as_a_copy_with_no_coercions() -> None:
    arguments = {"a": 1, "b": "x", "c": True}
    kwargs = plain.validate(arguments)
    assert kwargs == {"a": 1, "b": "x", "c": True}
    kwargs["a"] = 2
    assert arguments == {"a": 1, "b": "x", "c": True}
    assert plain.last_coercions == []


def test_plain_arguments_as_json_text() -> None:
    assert plain.validate('{"b": "y", "a": -3}') == {"b": "y", "a": -3}


def test_a_bool_for_an_int_and_an_int_for_a_bool_are_still_refused() -> None:
    assert errors({"a": True, "b": "x"}) == [
        {"path": "/a", "message": "expected an integer, got boolean true"}
    ]
    assert errors({"a": 1, "b": "x", "c": 1}) == [
        {"path": "/c", "message": "expected a boolean, got number 1"}
    ]


def test_values_of_other_types_are_still_coerced_and_recorded() -> None:
    assert plain.validate({"a": "7", "b": "x", "c": "true"}) == {"a": 7, "b": "x", "c": True}
    assert plain.last_coercions == [
        {"path": "/a", "from": "7", "to": 7},
        {"path": "/c", "from": "true", "to": True},
    ]


def test_null_for_an_optional_field_still_means_its_default() -> None:
    assert plain.validate({"a": 1, "b": "x", "c": None}) == {"a": 1, "b": "x"}


def test_missing_and_unknown_fields_are_still_reported() -> None:
    assert errors({"a": 1}) == [
        {"path": "/b", "message": "missing required field (expected a string)"}
    ]
    assert errors({"a": 1, "b": "x", "d": 2}) == [
        {"path": "/d", "message": "unknown field 'd'; valid fields: a, b, c"}
    ]


def test_a_constrained_field_is_still_checked() -> None:
    @tool
    def bounded(n: Annotated[int, Param(ge=5)], word: Annotated[str, Param(max_length=2)]) -> None:
        """Take bounded values."""

    with pytest.raises(ToolArgumentsError) as info:
        bounded.validate({"n": 1, "word": "long"})
    assert info.value.errors == [
        {"path": "/n", "message": "must be at least 5, got 1"},
        {"path": "/word", "message": "must have at most 2 characters, got 4"},
    ]


def test_a_string_field_that_builds_a_type_still_builds_it() -> None:
    @tool
    def when(day: dt.date, note: str) -> None:
        """Take a date."""

    assert when.validate({"day": "2024-01-02", "note": "n"}) == {
        "day": dt.date(2024, 1, 2),
        "note": "n",
    }
