"""The hot-path JSON parser gives exactly what json.loads gives, errors included."""

from __future__ import annotations

import json
import re

import pytest

from aiwrapper._wire import _jsonscan as jsonscan


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, 2.5, "x\\u00e9"]}',
        " {}",
        "{} ",
        "[1] x",
        "",
        "{",
        "NaN",
        "1",
        '"s"',
        "{}\n",
        ' \t{"a": 1}\r\n',
        "\t[1] x",
        "  ",
        " {",
        "\ufeff{}",
        "\u00a0{}",  # not JSON white space
        ' \t{"a": x}',
        "\n\n[1, 2,]",
        ' {"a": 1} {}',
        "\t",
    ],
)
def test_the_fast_loads_gives_what_json_loads_gives(text: str) -> None:
    try:
        expected: object = json.loads(text)
    except ValueError as exc:
        # The same message, position included, white space before the value or not.
        with pytest.raises(ValueError, match=f"^{re.escape(str(exc))}$"):
            jsonscan.loads(text)
        return
    got = jsonscan.loads(text)
    assert repr(got) == repr(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        (' \t{"a": 1}', {"a": 1}),
        ('{"a": 1}\r\n ', {"a": 1}),
        ("[DONE]", None),
        ("  [DONE]", None),
        ("[1]", None),
        (" 1", None),
        ('{"a": 1} x', None),
        ('{"a": ', None),
        ("", None),
        (" ", None),
        ("\u00a0{}", None),
    ],
)
def test_scan_object_reads_one_object_with_white_space_around_it(
    text: str, expected: object
) -> None:
    assert jsonscan.scan_object(text) == expected
