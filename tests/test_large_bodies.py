"""Large request bodies: spliced into one buffer byte for byte as json writes them, and freed
as soon as their round is over."""

from __future__ import annotations

import gc
import json
import math
import tracemalloc
import weakref
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aiwrapper import Lang
from aiwrapper._wire import _splice
from aiwrapper._wire._jsontext import Declaration, dumps_compact
from aiwrapper._wire._outgoing import json_bytes


@pytest.fixture
def small_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Strings of 8 characters or more count as large, so small bodies take the splice path."""
    monkeypatch.setattr(_splice, "LARGE", 8)
    monkeypatch.setattr(_splice, "_SLICE", 5)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.usefixtures("small_large")
@given(body=st.dictionaries(st.text(), json_values, max_size=4))
def test_any_body_is_written_as_the_compact_encoder_writes_it(body: dict[str, Any]) -> None:
    try:
        expected = dumps_compact(body).encode()
    except UnicodeEncodeError:  # a lone surrogate: the ASCII form, as before
        expected = json.dumps(body, separators=(",", ":")).encode()
    assert json_bytes(body) == expected


@pytest.mark.usefixtures("small_large")
def test_large_strings_with_escapes_unicode_and_placeholder_lookalikes() -> None:
    body = {
        "model": "m",
        "tools": [Declaration({"name": "t", "description": "a long description here"})],
        "messages": [
            {"content": ['quote " and \\ and \n and \x01 inside a long one', "é" * 30]},
            {"content": "@0123456789abcdef01234567@0 looks like a placeholder"},
            [1, 2.5, None, True, "short"],
        ],
    }
    assert json_bytes(body) == dumps_compact(body).encode()


@pytest.mark.usefixtures("small_large")
def test_nan_beside_a_large_string_is_sent_as_null() -> None:
    body = {"a": math.nan, "b": "a long string of text"}
    assert json.loads(json_bytes(body)) == {"a": None, "b": "a long string of text"}


def test_a_body_without_large_strings_is_not_copied() -> None:
    body = {"model": "m", "messages": [{"content": "hi"}]}
    assert _splice.LargeStrings.of(body) is None


def test_a_large_body_is_written_beside_its_string_not_three_times_over() -> None:
    data = "QUJD" * 2_500_000  # 10 MB of base64 text, kept by its part as a request replays it
    body = {"model": "m", "messages": [{"role": "user", "content": [{"data": data}]}]}
    tracemalloc.start()
    try:
        sent = json_bytes(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sent == dumps_compact(body).encode()
    assert peak < 1.1 * len(data)  # the body's bytes and a slice; json alone would take 2x


@pytest.mark.anyio
async def test_a_sent_body_is_freed_when_its_round_ends_not_by_the_garbage_collector() -> None:
    bodies: list[weakref.ref[httpx.Request]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(weakref.ref(request))
        reply = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
        usage = {"input_tokens": 1, "output_tokens": 1}
        return httpx.Response(200, json={**reply, "stop_reason": "end_turn", "usage": usage})

    gc.disable()  # only reference counting frees what the round no longer holds
    try:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            lang = Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=client)
            await lang.ask("hi", stream=False)
            assert bodies[0]() is None
    finally:
        gc.enable()
