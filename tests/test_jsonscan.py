"""The hot-path JSON parser gives exactly what json.loads gives, errors included."""

from __future__ import annotations

import json

import pytest

from aiwrapper._wire import _jsonscan as jsonscan


@pytest.mark.parametrize(
    "text",
    ['{"a": [1, 2.5, "x\\u00e9"]}', " {}", "{} ", "[1] x", "", "{", "NaN", "1", '"s"', "{}\n"],
)
def test_the_fast_loads_gives_what_json_loads_gives(text: str) -> None:
    try:
        expected: object = json.loads(text)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:20]):
            jsonscan.loads(text)
        return
    got = jsonscan.loads(text)
    assert repr(got) == repr(expected)
