"""Best-effort parsing of streamed JSON arguments, and its edge cases."""

from __future__ import annotations

import json
from typing import Any

import pytest

from aiwrapper._wire._partial_json import PartialJSON, parse_partial


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


DOCUMENT = (
    '{"name": "\\u00d8 \\"q\\" \\\\ \\ud83d\\ude00 ü", "n": -12.5e3, "ok": true, '
    '"list": [1, [2, {"deep": false}], null, "s"], "empty": {}, "none": []}'
)


def test_fed_in_any_two_pieces_the_parser_reads_what_the_whole_text_gives() -> None:
    for cut in range(len(DOCUMENT) + 1):
        for end in (cut, len(DOCUMENT)):
            parser = PartialJSON()
            parser.feed(DOCUMENT[:cut])
            parser.feed(DOCUMENT[cut:end])
            assert parser.value == parse_partial(DOCUMENT[:end]), (cut, end)
    assert parse_partial(DOCUMENT) == json.loads(DOCUMENT)


def test_fed_one_character_at_a_time_every_value_so_far_is_a_prefix_value() -> None:
    parser = PartialJSON()
    for end, char in enumerate(DOCUMENT, start=1):
        parser.feed(char)
        assert parser.value == parse_partial(DOCUMENT[:end])
    assert parser.value == json.loads(DOCUMENT)


def test_a_string_read_after_every_fragment_keeps_earlier_readings_unchanged() -> None:
    parser = PartialJSON()
    parser.feed('{"text": "')
    readings = []
    for i in range(200):
        parser.feed(str(i % 10))
        readings.append(parser.value["text"])
    assert readings == ["".join(str(k % 10) for k in range(i + 1)) for i in range(200)]


def test_escapes_among_plain_fragments_read_as_json_reads_them() -> None:
    # Two-character escapes whole in a fragment, and escapes cut by a fragment's end.
    fragments = ["a", '\\"q\\" \\n', "b", "\\", "t", "\\u00", "e9", "\\ud83d", "x"]
    parser = PartialJSON()
    parser.feed('{"code": "')
    readings = [parser.feed(fragment)["code"] for fragment in fragments]
    text = 'a"q" \nb'
    assert readings == [
        "a",
        'a"q" \n',
        text,
        text,  # a lone backslash waits for what it escapes
        text + "\t",
        text + "\t",
        text + "\té",
        text + "\té",  # a high surrogate waits for its low half
        text + "\té\ud83dx",  # none came: kept alone, as json.loads keeps it
    ]
    parser.feed('"}')
    assert parser.value == json.loads('{"code": "' + "".join(fragments) + '"}')


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deep_nesting_never_exhausts_the_recursion_limit(depth: int) -> None:
    parser = PartialJSON()
    parser.feed("[" * depth + "1")
    parser.feed("]" * depth)
    levels, value = 0, parser.value
    while isinstance(value, list):
        levels, value = levels + 1, value[0]
    assert (levels, value) == (depth, 1)
    deep_object = parse_partial('{"a": ' * depth)
    assert isinstance(deep_object, dict)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1} x', {"a": 1}),
        ('{"a": 1, "b" 2}', {"a": 1}),
        ('{"a": [1, 2}', {"a": [1, 2]}),
        ('{"a": "\\q"}', {"a": ""}),
        ('{"a": "\\u00zz"}', {"a": ""}),
        ('{"a": trux}', {}),
        ('{"a": 1.2.3}', {}),
        ("x", None),
    ],
)
def test_text_that_stops_being_json_keeps_the_value_read_so_far(text: str, expected: Any) -> None:
    parser = PartialJSON()
    parser.feed(text)
    parser.feed('"more": 1}')  # nothing after the fault is read
    assert parser.value == expected
