"""A ``Decimal`` parameter takes a JSON number too, built from the digits the model sent.

Never through a binary float: ``0.1`` is ``Decimal("0.1")``, and digits beyond a float's
precision are kept.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from typing import Annotated, Any

import pytest

from aiwrapper import Lang
from aiwrapper._errors import ToolArgumentsError
from aiwrapper._tools import Param, tool


@tool
def pay(amount: Decimal, tip: float = 0.0, parts: list[Decimal] | None = None) -> str:
    """Pay an amount."""
    return f"{amount!r} {tip!r} {parts!r}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"amount": 0.1}', Decimal("0.1")),
        ('{"amount": 12345678901234567.89}', Decimal("12345678901234567.89")),
        ('{"amount": 0.10000000000000000555}', Decimal("0.10000000000000000555")),
        ('{"amount": 1e-7}', Decimal("1E-7")),
        ('{"amount": -2.50}', Decimal("-2.50")),
        ('{"amount": 3}', Decimal(3)),
        ('{"amount": "0.1"}', Decimal("0.1")),
    ],
)
def test_a_json_number_is_built_from_its_text(text: str, expected: Decimal) -> None:
    built = pay.validate(text)["amount"]
    assert type(built) is Decimal
    assert built.as_tuple() == expected.as_tuple()


def test_numbers_inside_lists_are_exact_and_floats_stay_plain_floats() -> None:
    kwargs = pay.validate('{"amount": 1, "tip": 0.1, "parts": [0.1, 0.2]}')
    assert kwargs["parts"] == [Decimal("0.1"), Decimal("0.2")]
    assert sum(kwargs["parts"]) == Decimal("0.3")
    assert type(kwargs["tip"]) is float
    assert kwargs["tip"] == 0.1


def test_a_python_float_given_as_a_value_is_read_by_its_shortest_text() -> None:
    assert pay.validate({"amount": 0.1})["amount"] == Decimal("0.1")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("true", "expected a decimal number (a string or a JSON number), got boolean true"),
        ('"abc"', 'expected a decimal number (a string or a JSON number), got string "abc"'),
        ("null", "expected a decimal number (a string or a JSON number), got null"),
    ],
)
def test_what_is_no_number_is_refused(value: str, message: str) -> None:
    with pytest.raises(ToolArgumentsError) as info:
        pay.validate(f'{{"amount": {value}}}')
    assert info.value.errors == [{"path": "/amount", "message": message}]


def test_bounds_are_checked_on_a_number_too() -> None:
    @tool
    def price(x: Annotated[Decimal, Param(ge=0)]) -> None:
        """Set a price."""

    with pytest.raises(ToolArgumentsError) as info:
        price.validate('{"x": -0.5}')
    assert info.value.errors == [{"path": "/x", "message": "must be at least 0, got -0.5"}]


@pytest.mark.anyio
async def test_a_run_hands_the_tool_the_exact_decimal() -> None:
    seen: list[Any] = []

    @tool
    def book(amount: Decimal) -> str:
        """Book an amount."""
        seen.append(amount)
        return "ok"

    call = {"name": "book", "arguments": '{"amount": 0.1}', "id": "c1"}
    lang = Lang.scripted([{"function_calls": [call]}, "done"])
    await lang.ask("Book 0.1", functions=[book])
    assert seen == [Decimal("0.1")]
    assert decimal.Decimal("0.1") + decimal.Decimal("0.2") == seen[0] + Decimal("0.2")
