"""``Envelope`` reads exactly what parsing the whole text reads, or declines (``MISSING``)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiwrapper._wire._jsonenvelope import MISSING, Envelope

DELTA = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%s"}}'


def _text_of(payload: Any) -> Any:
    return payload["delta"]["text"]


def _learned(reference: str, key: str = "text", find: Any = _text_of) -> Envelope:
    envelope = Envelope(key, find)
    envelope.learn(reference, json.loads(reference))
    return envelope


def test_a_text_in_the_same_envelope_is_read_with_its_new_value() -> None:
    envelope = _learned(DELTA % "Hello")
    assert envelope.read(DELTA % ", world") == ", world"
    assert envelope.read(DELTA % "caf\\u00e9 \\ud83d\\ude00 \\n") == "café 😀 \n"


@pytest.mark.parametrize(
    "text",
    [
        DELTA.replace('"index":0', '"index":1') % "x",  # another block
        DELTA.replace('"text":"', '"text": "') % "x",  # other white space before the value
        (DELTA % "x")[:-1] + " }",  # ... or after it
        (DELTA % "x") + "\n",
        DELTA.replace("%s", 'x" "y'),  # two values where one was
        DELTA.replace('"%s"', "[1,"),  # a value cut off
        DELTA.replace('"%s"', ""),  # no value
        DELTA[:40],
        "",
    ],
)
def test_a_text_differing_outside_the_value_is_not_read(text: str) -> None:
    assert _learned(DELTA % "Hello").read(text) is MISSING


@pytest.mark.parametrize(
    "value", ["12", "-1.5e3", "true", "null", "[1, {}]", '{"a": [2]}', '"\\"quoted\\""']
)
def test_any_json_value_in_the_place_is_read_as_json_reads_it(value: str) -> None:
    envelope = _learned(DELTA % "x")
    text = DELTA.replace('"%s"', value)
    assert envelope.read(text) == json.loads(text)["delta"]["text"]


def test_the_key_is_told_from_the_same_word_as_a_value() -> None:
    # '"text"' first appears as the value of "type": the place found is after the key.
    reference = '{"type":"text","text":"a","n":1}'
    envelope = _learned(reference, find=lambda payload: payload["text"])
    assert envelope.read('{"type":"text","text":"bc","n":1}') == "bc"


def test_with_a_key_repeated_the_value_json_keeps_is_the_one_read() -> None:
    # json keeps the last of two equal keys: the first one's value is not the value asked for.
    envelope = _learned('{"d":"x","d":"y"}', key="d", find=lambda payload: payload["d"])
    assert envelope.read('{"d":"x","d":"z"}') == "z"
    assert envelope.read('{"d":"w","d":"y"}') is MISSING


def test_white_space_around_the_colon_is_part_of_the_envelope() -> None:
    envelope = _learned('{ "text" :  "a" , "n": 1 }', find=lambda payload: payload["text"])
    assert envelope.read('{ "text" :  "bc" , "n": 1 }') == "bc"


def test_nothing_is_learned_where_the_path_has_no_value() -> None:
    envelope = _learned('{"type":"ping"}')
    assert envelope.read('{"type":"ping"}') is MISSING


def test_a_value_equal_to_the_probe_is_not_learned() -> None:
    envelope = _learned(DELTA % "\\u0000aiwrapper-envelope-probe")
    assert envelope.read(DELTA % "x") is MISSING


def test_learning_from_texts_that_never_repeat_backs_off() -> None:
    finds = 0

    def counted(payload: Any) -> Any:
        nonlocal finds
        finds += 1
        return payload["delta"]["text"]

    envelope = Envelope("text", counted)
    for i in range(1000):
        text = (DELTA % "x")[:-1] + f',"pad":"{"p" * (i % 7)}{i}"}}'
        if envelope.read(text) is MISSING and envelope.due:
            envelope.learn(text, json.loads(text))
    assert 2 <= finds <= 2 * 12  # two parses a learning, about log2(1000) learnings


def test_two_shapes_taking_turns_are_not_learned_over_and_over() -> None:
    # OpenAI pads some chunks with "obfuscation" and not others: one chunk in three, here.
    finds, hits = 0, 0

    def counted(payload: Any) -> Any:
        nonlocal finds
        finds += 1
        return payload["delta"]["text"]

    envelope = Envelope("text", counted)
    for i in range(3000):
        text = DELTA % f"t{i}"
        if i % 3 == 0:
            text = text[:-1] + ',"obfuscation":"x9Qw"}'
        value = envelope.read(text)
        hits += value == f"t{i}"
        if value is MISSING and envelope.due:
            envelope.learn(text, json.loads(text))
    assert finds <= 2 * 12  # a few learnings, not one every few texts
    assert hits >= 1900  # the shape of two texts in three is the one kept


def test_texts_go_unoffered_while_nothing_worth_reading_is_learned() -> None:
    envelope = Envelope("text", _text_of)
    assert envelope.cold
    assert not envelope.tries(15)
    assert not envelope.due
    assert not envelope.tries(1)
    assert envelope.due  # 16 texts read whole: time to learn
    envelope.learn(DELTA % "a", json.loads(DELTA % "a"))
    assert not envelope.cold
    assert envelope.tries(1000)
    assert not envelope.due
    assert envelope.read(DELTA % "b") == "b"


def test_an_envelope_that_reads_none_of_its_texts_goes_cold_until_due() -> None:
    envelope = _learned(DELTA % "a")
    learnings = 0
    for i in range(200):  # every text differs from the last outside its value
        text = (DELTA % "x")[:-1] + f',"n{i}":0}}'
        if envelope.read(text) is MISSING and envelope.due:
            envelope.learn(text, json.loads(text))
            learnings += 1
        if envelope.cold:
            break
    assert envelope.cold
    assert learnings == 5  # waits of 1, 2, 4, 8, then 16 misses, with no hit
    assert not envelope.tries(15)  # the rest of its wait, unoffered
    assert not envelope.due
    assert not envelope.tries(1000)
    assert envelope.due
    envelope.learn(DELTA % "a", json.loads(DELTA % "a"))
    assert envelope.tries(1)
    assert envelope.read(DELTA % "b") == "b"


def test_an_envelope_that_reads_again_is_learned_again_at_once() -> None:
    envelope = _learned(DELTA % "a")
    other = DELTA.replace('"index":0', '"index":1')
    assert envelope.read(DELTA % "b") == "b"
    assert envelope.read(other % "c") is MISSING
    assert envelope.due
    envelope.learn(other % "c", json.loads(other % "c"))
    assert envelope.read(other % "d") == "d"


def test_a_forgotten_envelope_goes_unoffered_until_it_is_due_again() -> None:
    envelope = _learned(DELTA % "a")
    for piece in "bcdef":  # it pays: the next attempt comes after one miss
        assert envelope.read(DELTA % piece) == piece
    envelope.forget()
    assert envelope.cold
    assert not envelope.tries(1)  # what it was learned with changed: nothing offered
    assert envelope.due
    envelope.learn(DELTA % "g", json.loads(DELTA % "g"))
    assert envelope.tries(1)
    assert envelope.read(DELTA % "h") == "h"


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, reference=st.text(), ascii_only=st.booleans(), spaced=st.booleans())
def test_what_is_read_is_what_json_reads(
    value: Any, reference: str, ascii_only: bool, spaced: bool
) -> None:
    separators = (", ", ": ") if spaced else (",", ":")

    def dump(piece: Any) -> str:
        envelope = {"type": "content_block_delta", "index": 3, "delta": {"text": piece}}
        return json.dumps(envelope, ensure_ascii=ascii_only, separators=separators)

    envelope = _learned(dump(reference))
    text = dump(value)
    assert envelope.read(text) == json.loads(text)["delta"]["text"]


PADDED = '{"choices":[{"delta":%s,"finish_reason":null}],"usage":null,"obfuscation":%s}'


def test_without_a_padding_the_envelope_must_repeat_whole() -> None:
    envelope = _learned(PADDED % ('{"content":"a"}', '"x9"'), key="delta", find=_delta)
    assert envelope.read(PADDED % ('{"content":"b"}', '"x9"')) == {"content": "b"}
    assert envelope.read(PADDED % ('{"content":"b"}', '"Qw"')) is MISSING


def _delta(chunk: Any) -> Any:
    return chunk["choices"][0]["delta"]


def _with_padding() -> Envelope:
    envelope = Envelope(
        "delta", _delta, padding=[("obfuscation", lambda chunk: chunk["obfuscation"])]
    )
    reference = PADDED % ('{"content":"a"}', '"x9"')
    envelope.learn(reference, json.loads(reference))
    return envelope


@pytest.mark.parametrize("padding", ['"Qw"', '""', '"a\\"b"', "7", '{"choices":[]}', "[1, 2]"])
def test_a_padding_value_may_change_and_is_not_read(padding: str) -> None:
    assert _with_padding().read(PADDED % ('{"content":"b"}', padding)) == {"content": "b"}


@pytest.mark.parametrize(
    "text",
    [
        '{"choices":[{"delta":{"content":"b"}}',  # the value, then the end: no middle, no padding
        PADDED % ('{"content":"b"}', '"x" "y"'),
        PADDED % ('{"content":"b"}', ""),
        PADDED.replace("null}]", '"stop"}]') % ('{"content":"b"}', '"x9"'),
        (PADDED % ('{"content":"b"}', '"x9"'))[:-1] + ',"usage":{"total_tokens":1}}',
    ],
)
def test_around_a_padding_everything_else_must_repeat(text: str) -> None:
    assert _with_padding().read(text) is MISSING


LINE = '{"model":"m","created_at":%s,"message":{"role":"assistant","content":%s},"done":false}'


def _timestamped() -> Envelope:
    envelope = Envelope(
        "content",
        lambda line: line["message"]["content"],
        padding=[("created_at", lambda line: line["created_at"])],
    )
    reference = LINE % ('"2026-01-01T00:00:00.1Z"', '"a"')
    envelope.learn(reference, json.loads(reference))
    return envelope


@pytest.mark.parametrize("stamp", ['"2026-01-01T00:00:00.2Z"', '""', "17", "null"])
def test_a_padding_before_the_value_may_change_too(stamp: str) -> None:
    assert _timestamped().read(LINE % (stamp, '"b\\n"')) == "b\n"


@pytest.mark.parametrize(
    "text",
    [
        LINE.replace('"model":"m"', '"model":"n"') % ('"t"', '"b"'),
        LINE.replace('"role"', '"thinking":"x","role"') % ('"t"', '"b"'),
        LINE % ('"t" "u"', '"b"'),
        LINE % ('"t"', '"b", "tool_calls": []'),
        LINE.replace("false", "true") % ('"t"', '"b"'),
    ],
)
def test_around_a_padding_before_everything_else_must_repeat(text: str) -> None:
    assert _timestamped().read(text) is MISSING


EVENT = '{"type":"delta","sequence_number":%s,"item_id":"fc_1","delta":%s,"obfuscation":%s}'


def _two_paddings() -> Envelope:
    envelope = Envelope(
        "delta",
        lambda event: event["delta"],
        padding=[
            ("sequence_number", lambda event: event["sequence_number"]),
            ("obfuscation", lambda event: event["obfuscation"]),
        ],
    )
    reference = EVENT % ("3", '"a"', '"q"')
    envelope.learn(reference, json.loads(reference))
    return envelope


def test_paddings_on_both_sides_may_change_and_are_not_read() -> None:
    envelope = _two_paddings()
    assert envelope.read(EVENT % ("4", '"b"', '"qq"')) == "b"
    assert envelope.read(EVENT % ("12345", '{"x":[1]}', '""')) == {"x": [1]}
    assert envelope.read(EVENT.replace("fc_1", "fc_2") % ("5", '"c"', '"q"')) is MISSING


def test_a_padding_inside_the_value_is_no_padding() -> None:
    reference = '{"delta":{"pad":"x","text":"a"}}'
    envelope = Envelope(
        "delta", lambda event: event["delta"], padding=[("pad", lambda e: e["delta"]["pad"])]
    )
    envelope.learn(reference, json.loads(reference))
    assert envelope.read('{"delta":{"pad":"y","text":"b"}}') is MISSING
