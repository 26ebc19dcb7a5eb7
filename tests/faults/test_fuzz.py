"""Fuzzing every decoder on every wire through the public API (``Lang.ask`` over a recorded
transport): streams cut at any byte, bytes corrupted, any field replaced by any JSON value,
streamed and whole bodies. Whatever arrives:

- only documented errors escape (``AIWrapperError`` subclasses; a cut stream is a StreamError);
- no tool runs on arguments that were cut off (a cut stream runs no tool at all);
- every request sent is standard JSON, and the conversation left in ``result`` or in the
  error's ``.result`` is accepted by ``chat`` against a local test server on 127.0.0.1: the
  request it receives is standard JSON and answers every call the conversation made.

Examples are derandomized so CI is stable; ``HYPOTHESIS_PROFILE=explore`` searches at random
with many more examples.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aiwrapper import AIWrapperError, LangResult, RunTimeoutError, StreamError, tool

from . import turns, wires
from .server import LocalServer
from .wires import CONTENT_TYPES, Wire, strict_json

settings.register_profile(
    "ci",
    max_examples=12,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore", max_examples=2_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")

BACKENDS = ["asyncio", "trio"]
SERVERS: list[LocalServer] = []  # the module's local test server, while its tests run


@pytest.fixture(scope="module", autouse=True)
def local_server(no_proxy: None) -> Iterator[LocalServer]:
    server = LocalServer().start()
    SERVERS.append(server)
    yield server
    SERVERS.clear()
    server.stop()


@pytest.fixture(scope="module")
def no_proxy() -> Iterator[None]:
    saved = {k: os.environ.pop(k) for k in PROXY_VARIABLES if k in os.environ}
    yield
    os.environ.update(saved)


PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


class Outcome:
    """What one fuzzed run did: the error (if any) and the cities the tool ran with."""

    def __init__(self) -> None:
        self.failed: AIWrapperError | None = None
        self.ran: list[str] = []


async def ask_then_continue(name: str, first: bytes, *, stream: bool = True) -> Outcome:
    outcome = Outcome()

    @tool
    def get_weather(city: str) -> str:
        """Weather in a city."""
        assert isinstance(city, str)
        outcome.ran.append(city)
        return "sunny"

    second = wires.TEXT[name]("done") if stream else turns.whole_text(name, "done")
    wire = Wire(name, [first, second])
    try:
        result: LangResult | None = await wire.lang.ask(
            "go", functions=[get_weather], stream=stream
        )
    except AIWrapperError as exc:  # anything else escapes and fails the test
        outcome.failed, result = exc, exc.result
    assert result is not None  # an error after the first request carries the result
    for body in wire.raw:
        strict_json(body)
    await chat_accepts(name, result)
    return outcome


async def chat_accepts(name: str, result: LangResult) -> None:
    """``chat`` takes the conversation as is, over a real socket to the local test server."""
    assert all(c.status not in ("running", "streaming") for c in result.function_calls)
    server = SERVERS[0]
    lang = server.lang(name)
    try:
        more = await lang.chat(result.messages.add_user("go on"))
    finally:
        await lang.aclose()
    assert more.answer == "fine"
    wire, raw = server.bodies[-1]
    body = strict_json(raw)
    assert wire == name
    assert all(made == given for made, given in turns.answered_calls(name, body))


def run(backend: str, name: str, first: bytes, *, stream: bool = True) -> Outcome:
    async def main() -> Outcome:
        return await ask_then_continue(name, first, stream=stream)

    return anyio.run(main, backend=backend)


def test_the_uncut_turns_run_both_calls() -> None:
    for name in wires.WIRES:
        for backend in BACKENDS:
            outcome = run(backend, name, turns.STREAMS[name]())
            assert (outcome.failed, sorted(outcome.ran)) == (None, ["Oslo", "Rome"])
            whole = json.dumps(turns.whole(name)).encode()
            outcome = run(backend, name, whole, stream=False)
            assert (outcome.failed, sorted(outcome.ran)) == (None, ["Oslo", "Rome"])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", wires.WIRES)
@settings(settings.get_profile(PROFILE))
@given(data=st.data())
def test_a_stream_cut_anywhere_runs_no_tool(name: str, backend: str, data: st.DataObject) -> None:
    body = turns.STREAMS[name]()
    cut = data.draw(st.integers(0, len(body) - 1), label="cut at byte")
    outcome = run(backend, name, body[:cut])
    if outcome.failed is not None:
        assert isinstance(outcome.failed, StreamError)
        assert outcome.ran == []
    else:  # cut within the final separator: the stream had already ended properly
        assert sorted(outcome.ran) == ["Oslo", "Rome"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", wires.WIRES)
@settings(settings.get_profile(PROFILE))
@given(data=st.data())
def test_corrupted_bytes_raise_only_documented_errors(
    name: str, backend: str, data: st.DataObject
) -> None:
    body = bytearray(turns.STREAMS[name]())
    for _ in range(data.draw(st.integers(1, 4), label="corruptions")):
        at = data.draw(st.integers(0, len(body) - 1), label="at")
        body[at] = data.draw(st.integers(0, 255), label="byte")
    run(backend, name, bytes(body))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", wires.WIRES)
@settings(settings.get_profile(PROFILE))
@given(data=st.data(), value=JSON)
def test_any_field_replaced_by_any_json(
    name: str, backend: str, data: st.DataObject, value: Any
) -> None:
    events = split_events(name, turns.STREAMS[name]())
    index = data.draw(st.integers(0, len(events) - 1), label="event")
    head, payload = events[index]
    where = data.draw(st.sampled_from(paths(payload)), label="path")
    events[index] = (head, replaced(payload, where, value))
    run(backend, name, join_events(name, events))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", wires.WIRES)
@settings(settings.get_profile(PROFILE))
@given(data=st.data(), value=JSON)
def test_any_field_of_a_whole_body_replaced_by_any_json(
    name: str, backend: str, data: st.DataObject, value: Any
) -> None:
    body = turns.whole(name)
    where = data.draw(st.sampled_from(paths(body)), label="path")
    mutated = json.dumps(replaced(body, where, value)).encode()
    run(backend, name, mutated, stream=False)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", wires.WIRES)
@settings(settings.get_profile(PROFILE))
@given(data=st.data())
def test_a_stream_stalled_anywhere_then_timed_out_is_continuable(
    name: str, backend: str, data: st.DataObject
) -> None:
    body = turns.STREAMS[name]()
    cut = data.draw(st.integers(0, len(body)), label="stall after byte")

    async def stalled() -> AsyncIterator[bytes]:
        yield body[:cut]
        await anyio.sleep(30)

    async def main() -> None:
        ran: list[str] = []

        @tool
        def get_weather(city: str) -> str:
            """Weather in a city."""
            ran.append(city)
            return "sunny"

        headers = {"content-type": CONTENT_TYPES.get(name, "text/event-stream")}
        wire = Wire(name, [httpx.Response(200, content=stalled(), headers=headers)])
        with pytest.raises(RunTimeoutError) as info:
            await wire.lang.ask("go", functions=[get_weather], timeout=0.02)
        assert ran == []  # the turn never completed: no call ran
        await chat_accepts(name, info.value.result)

    anyio.run(main, backend=backend)


def split_events(name: str, body: bytes) -> list[tuple[bytes, Any]]:
    """The stream as (head, JSON payload) pairs: the ``event:`` line, the ``data:`` object."""
    if name == "ollama":
        return [(b"", json.loads(line)) for line in body.split(b"\n") if line]
    events = []
    for block in body.split(b"\n\n"):
        if block and block != b"data: [DONE]":
            head, _, data = block.rpartition(b"data: ")
            events.append((head, json.loads(data)))
    return events


def join_events(name: str, events: list[tuple[bytes, Any]]) -> bytes:
    if name == "ollama":
        return b"".join(json.dumps(p).encode() + b"\n" for _, p in events)
    body = b"".join(h + b"data: " + json.dumps(p).encode() + b"\n\n" for h, p in events)
    return body + (b"data: [DONE]\n\n" if name == "openai" else b"")


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, the value itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*prefix, i))
    return found


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copied = copy.deepcopy(value)
    place = copied
    for step in path[:-1]:
        place = place[step]
    place[path[-1]] = new
    return copied
