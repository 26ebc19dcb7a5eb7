"""Repeated calls: how a call is signed, counted in a row and answered without running."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from aiwrapper._conversation._call import FunctionCall
from aiwrapper._run._repeats import REPEAT_LIMIT, Repeats, sign


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"x": 1},
        {"b": [1, 2.5, None, True], "a": {"z": "é", "y": "\u2028"}},
        {"n": float("nan"), "inf": float("-inf")},
        {"when": dt.date(2024, 1, 2), "big": 10**40},
    ],
)
def test_a_call_is_signed_by_its_name_and_sorted_json_arguments(arguments: Any) -> None:
    call = FunctionCall(id="c1", name="f", arguments=arguments)
    assert sign(call) == ("f", json.dumps(arguments, sort_keys=True, default=str))


def test_arguments_holding_themselves_are_refused_as_json_refuses_them() -> None:
    arguments: dict[str, Any] = {}
    arguments["self"] = arguments
    with pytest.raises(ValueError, match="Circular reference detected"):
        sign(FunctionCall(id="c1", name="f", arguments=arguments))


def test_the_third_identical_call_in_a_row_is_a_repeat_and_another_call_resets_the_count() -> None:
    repeats = Repeats()
    same, other = ("f", '{"x": 1}'), ("f", '{"x": 2}')
    assert REPEAT_LIMIT == 3
    assert [repeats.seen(s) for s in (same, same, same, same, other, same)] == [
        False,
        False,
        True,
        True,
        False,
        False,
    ]


def test_a_repeat_is_answered_with_the_result_its_signature_last_had() -> None:
    repeats = Repeats()
    call = FunctionCall(id="c3", name="f", arguments={"x": 1})
    signature = sign(call)
    for _ in range(3):
        repeats.seen(signature)
    assert repeats.message(call, signature) == (
        "You already called 'f' with these same arguments 2 times in a row and have its "
        "result; do not call it again, use the result you have."
    )
    repeats.results[signature] = "2"
    assert repeats.message(call, signature).endswith("use the result you have. The result was: 2")
