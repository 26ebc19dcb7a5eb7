"""Best-effort parsing of streamed JSON arguments, and its edge cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper.partial_json import parse_partial


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"city": "Os', {"city": "Os"}),
        ('{"a": 1.', {"a": 1}),
        ('{"a": 1.5e-', {"a": 1.5}),
        ('{"a": 12', {"a": 12}),
        ('{"a": -', {}),
        ('{"a": 1, "b": -', {"a": 1}),
        ("[1, 2", [1, 2]),
        ("[1, 2,", [1, 2]),
        ("[true", [True]),
        ('{"a": tr', {}),
        ('{"a": "x", "b', {"a": "x"}),
        ('{"a": "x", "b"', {"a": "x"}),
        ('{"a": "x", "b":', {"a": "x"}),
        ('{"a": "x", "b": n', {"a": "x"}),
        ('{"a": [1, {"b": "c', {"a": [1, {"b": "c"}]}),
        ('{"a": {"b": 1}, "c": n', {"a": {"b": 1}}),
        ('{"a,b": tr', {}),
        ('{"k[": 1, "z": tr', {"k[": 1}),
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\\\', {"a": "x\\"}),
        ('{"a": "\\u00', {"a": ""}),
        ('{"a": "\\u00e9x', {"a": "éx"}),
        ('{"a": "x\\ud83d', {"a": "x"}),
        ('{"a": "x\\ud83d\\ude00', {"a": "x😀"}),
        ('{"a": "x\\"y', {"a": 'x"y'}),
        ('{"x": "ü☃', {"x": "ü☃"}),
        ('"abc', "abc"),
        ("{", {}),
        ('{"', {}),
        ("", None),
        ("   ", None),
        ("-", None),
        ("nul", None),
    ],
)
def test_partial_text_gives_the_value_so_far(text: str, expected: Any) -> None:
    assert parse_partial(text) == expected


def test_every_prefix_of_a_document_parses_without_raising() -> None:
    document = {
        "name": 'Ø "quoted" \\ back\nline',
        "n": -12.5e3,
        "list": [1, [2, {"deep": True}], None],
        "emoji": "😀",
    }
    for text in (json.dumps(document), json.dumps(document, ensure_ascii=False)):
        seen = [parse_partial(text[:end]) for end in range(len(text) + 1)]
        assert seen[-1] == document
        assert all(v is None or isinstance(v, dict) for v in seen)
        assert all(isinstance(v, dict) for v in seen[1:])  # "{" onwards is always an object
        for value in seen:  # never half a surrogate pair, which could not even be printed
            json.dumps(value, ensure_ascii=False).encode("utf-8")
