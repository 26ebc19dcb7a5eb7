"""The executor's own helpers: how a call is signed to tell repeated calls apart."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from aiwrapper._call import FunctionCall
from aiwrapper._execution import _signature


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
    assert _signature(call) == ("f", json.dumps(arguments, sort_keys=True, default=str))


def test_arguments_holding_themselves_are_refused_as_json_refuses_them() -> None:
    arguments: dict[str, Any] = {}
    arguments["self"] = arguments
    with pytest.raises(ValueError, match="Circular reference detected"):
        _signature(FunctionCall(id="c1", name="f", arguments=arguments))
