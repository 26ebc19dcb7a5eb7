"""``_jsonsteps.loads`` reads what ``json.loads`` reads, and no call into C looks far.

Small steps stand in for the 64 K characters of a real read, so every way a string, a run of
whitespace or a container can be cut (inside an escape, between the halves of a surrogate
pair) is met by short texts.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aiwrapper.gateway import _jsonsteps
from aiwrapper.gateway._jsonsteps import loads

_TEXT = st.text(alphabet=st.sampled_from('ab \\"\n\t\x01é漢😀/'), max_size=40)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=40,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@settings(max_examples=300, deadline=None)
@given(
    value=_VALUES,
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    step=st.integers(7, 40),
)
def test_any_json_is_read_as_json_loads_reads_it(
    value: Any, ascii_only: bool, indent: int | None, step: int
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert _same(loads(text.encode(), step=step), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        '"' + "\\ud83d\\ude00" * 50 + '"',  # pairs, cut anywhere
        '"' + "\\ud800\\ud83d\\ude00x" * 30 + '"',  # a lone half, then a pair
        '"' + "\\\\" * 100 + '"',  # escaped backslashes only: no quiet run to cut in
        '"' + '\\"' * 100 + '"',  # escaped quotes: the first quote is not the end
        '"' + "漢字\\n" * 100 + '"',
        '{"' + "k" * 300 + '": "' + "v\\u0041" * 60 + '"}',  # a long key, escapes close together
        "[" + " " * 500 + "1" + "\n" * 300 + "]",
        '[1.5e300, -0, NaN, Infinity, -Infinity, {"a": 1, "a": 2}, [], {}]',
    ],
)
def test_long_strings_runs_and_json_oddities_are_read_as_json_loads_reads_them(text: str) -> None:
    for step in (7, 8, 9, 13, 64, 1000):
        assert _same(loads(text.encode(), step=step), json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[1,]",
        '{"a": 1,}',
        "[1 2]",
        '{"a" 1}',
        '"abc',
        '"a\nb"',  # a raw control character
        '"\\x"',
        '"\\u12"',
        '"\\u00zz"',
        "nul",
        "[",
        "{1: 2}",
        "[01]",
        "1 2",
        '"' + "x" * 300,
    ],
)
def test_what_json_loads_refuses_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 (json's own errors differ in wording)
        json.loads(text)
    for step in (7, 64):
        with pytest.raises(ValueError):  # noqa: PT011
            loads(text.encode(), step=step)


def test_a_body_that_is_not_utf8_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="utf-8"):
        loads(b'"\xed\xa0\x80"', step=7)  # a surrogate encoded: not UTF-8


def test_a_number_longer_than_a_step_is_refused() -> None:
    text = "1." + "5" * _jsonsteps.STEP
    assert json.loads(text) == 1.5555555555555556
    with pytest.raises(ValueError, match="Number too long"):
        loads(text.encode())


@pytest.mark.parametrize(
    "body",
    [
        json.dumps({"content": "x" * 200_000}),
        json.dumps({"content": "line\n" * 40_000}),
        json.dumps({"content": "\\" * 100_000}),
        json.dumps({"k" * 100_000: 1}),
        "[" + " " * 200_000 + "1]",
        json.dumps([[i, {"a": [i] * 50}] for i in range(2_000)]),
        json.dumps([list(range(20_000))]),
    ],
)
def test_no_call_into_c_looks_further_than_a_step(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each string C reads ends within a step; each piece handed whole to C is a step long."""
    step = 4096
    spans: list[int] = []
    read_string, scan = _jsonsteps._read_string, _jsonsteps._scan

    def reading(text: str, at: int, strict: bool) -> tuple[str, int]:
        value, end = read_string(text, at, strict)
        spans.append(end - at)
        return value, end

    def scanning(text: str, at: int) -> tuple[Any, int]:
        spans.append(len(text))
        return scan(text, at)

    monkeypatch.setattr(_jsonsteps, "_read_string", reading)
    monkeypatch.setattr(_jsonsteps, "_scan", scanning)
    assert _same(loads(body.encode(), step=step), json.loads(body))
    assert spans
    assert max(spans) <= step + 12  # a cut waits for an open escape (six, or twelve for a pair)
