"""Standard JSON: what ``json.loads`` reads, with NaN, infinities and absurd nesting refused."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from aiwrapper._wire._jsontext import is_json_object, loads_standard


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


@pytest.mark.parametrize(
    "text",
    [
        '{"x": 0}',
        '{"a": [1, 2.5, "x\\u00e9"], "b": null}',
        " {}",
        "{} ",
        "\n{}\n",
        "[1]",
        '"s"',
        "{} x",
        "{}{}",
        "",
        "   ",
        "{",
        '{"a": 1',
        '{"a": NaN}',
        "Infinity",
        '{"a": -Infinity}',
        "\ufeff{}",
        b'{"a": 1}',
        b"\xef\xbb\xbf{}",
    ],
)
def test_standard_json_is_read_as_json_loads_reads_it_or_refused_as_it_refuses(
    text: str | bytes,
) -> None:
    try:
        expected: object = json.loads(text, parse_constant=_refuse)
    except ValueError as exc:
        with pytest.raises(ValueError, match=f"^{re.escape(str(exc))}$"):
            loads_standard(text)
        return
    assert repr(loads_standard(text)) == repr(expected)


def test_absurd_nesting_is_refused_as_invalid_json() -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        loads_standard("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ('{"a": 1}', True),
        (' {"a": 1} ', True),
        ("[1]", False),
        ('{"a": 1', False),
        ("{} {}", False),
        ('{"a": NaN}', False),
    ],
)
def test_a_json_object_is_told_from_anything_else(text: str, whole: bool) -> None:
    assert is_json_object(text) is whole
