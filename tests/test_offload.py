"""A big request is read, checked, encoded and written in worker threads, byte for byte as on
the loop, and a run cancelled meanwhile ends cleanly."""

from __future__ import annotations

import gc
import json
import math
import sys
import threading
from collections.abc import Callable
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aiwrapper import Image, Lang, LangMessage
from aiwrapper._conversation._parts import MediaPart, TextPart
from aiwrapper._run import _bodybytes, _offload
from aiwrapper._run._bodybytes import body_bytes
from aiwrapper._run._offload import HEAVY_BYTES, is_heavy, is_heavy_input
from aiwrapper._wire import _splice
from aiwrapper._wire._jsontext import Declaration
from aiwrapper._wire._outgoing import json_bytes
from aiwrapper.providers.bedrock import AwsCredentials

from .test_persistence_roundtrip import EVENTS, FUNCTIONS, PNG, WIRES, Server, Wire

pytestmark = pytest.mark.anyio

KEYS = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-tok")
SIGNED = Wire(  # SigV4: the body is kept beside its bytes, for the signature
    "bedrock-sigv4",
    lambda c: Lang.bedrock(
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        region="us-west-2",
        credentials=KEYS,
        http_client=c,
        max_retries=0,
    ),
    ("bedrock/thinking_tool_use.bin",),
    "bedrock/text.bin",
    EVENTS,
    {"thinking": 2048},
)


# ---- the estimate ---------------------------------------------------------------------------


def test_a_small_conversation_is_not_heavy_and_a_big_one_is() -> None:
    assert not is_heavy([LangMessage.text("user", "hi")] * 10)
    assert not is_heavy_input([{"role": "user", "content": "hi"}] * 10)
    assert is_heavy([LangMessage.text("user", "x" * HEAVY_BYTES)])
    assert is_heavy_input([{"role": "user", "content": "x" * HEAVY_BYTES}])
    assert is_heavy_input([{"role": "user", "content": [{"type": "text", "text": "x" * 300_000}]}])
    assert is_heavy([LangMessage.text("user", "hi")] * 2_048)  # however little each holds
    assert is_heavy_input([{"role": "user", "content": "hi"}] * 2_048)
    image = Image.from_bytes(PNG + b"\0" * HEAVY_BYTES)
    assert is_heavy([LangMessage("user", [MediaPart(image)])])
    assert is_heavy_input([LangMessage("user", [TextPart("look"), MediaPart(image)])])
    assert not is_heavy_input("x" * HEAVY_BYTES)  # a prompt: one message, cheap to read
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "x" * 300_000}}
    assert is_heavy_input([{"role": "assistant", "tool_calls": [call]}])
    assert is_heavy_input([{"role": "user", "content": [{}] * 10_000}])  # many parts
    assert is_heavy([LangMessage("user", [TextPart("")] * 10_000)])
    hostile = [{"role": "user", "content": 5, "tool_calls": 5}, {"content": [5, None]}, 5, None]
    assert not is_heavy_input(hostile)  # reading it says what is wrong, not the estimate
    assert not is_heavy_input(iter([{"role": "user", "content": "x" * HEAVY_BYTES}]))


# ---- the body's bytes -----------------------------------------------------------------------


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few units, and strings of 8 characters spliced: small bodies take every
    path of the stepped writer."""
    monkeypatch.setattr(_bodybytes, "_BUDGET", 3)
    monkeypatch.setattr(_bodybytes, "_UNIT", 4)
    monkeypatch.setattr(_splice, "LARGE", 8)
    monkeypatch.setattr(_splice, "_SLICE", 5)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text() | st.integers(), inner, max_size=5)
    ),
    max_leaves=30,
)


@pytest.mark.usefixtures("small_steps")
@given(body=st.dictionaries(st.text(), json_values, max_size=5))
def test_any_body_is_written_in_steps_as_json_bytes_writes_it(body: dict[str, Any]) -> None:
    try:
        expected = json_bytes(body)
    except Exception as exc:  # what cannot be sent is refused the same way
        with pytest.raises(type(exc)):
            body_bytes(body)
        return
    assert body_bytes(body) == expected


@pytest.mark.usefixtures("small_steps")
def test_bodies_with_declarations_nan_surrogates_and_deep_nesting() -> None:
    declaration = Declaration({"name": "t", "parameters": {"type": "object"}})
    nested: Any = []
    for _ in range(5_000):
        nested = [nested]
    bodies: list[Any] = [
        {"tools": [declaration] * 9, "messages": [{"content": "é\u2028😀" * 5}] * 9},
        {"messages": [{"content": [1.5, math.nan, math.inf]}] * 9, "model": "m"},
        {"messages": [{"content": "a lone \udc80 surrogate, long enough"}] * 9},
        {1: [True, None] * 9, 2.5: {"k": list(range(20))}},
        {"messages": nested},
    ]
    for body in bodies:
        try:
            expected = json_bytes(body)
        except Exception as exc:
            with pytest.raises(type(exc)):
                body_bytes(body)
            continue
        assert body_bytes(body) == expected


def test_a_big_body_is_written_by_short_calls_into_the_encoder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: list[int] = []
    real = _bodybytes.dumps_compact

    def spied(value: Any) -> str:
        text = real(value)
        written.append(len(text))
        return text

    monkeypatch.setattr(_bodybytes, "dumps_compact", spied)
    message = {"role": "user", "content": "lorem ipsum dolor sit amet " * 5}
    body = {"model": "m", "messages": [message] * 20_000, "tools": [{"name": "t"}]}
    assert body_bytes(body) == json_bytes(body)
    assert sum(written) > 2_800_000
    assert max(written) < 300_000  # no call writes more than about 256 KiB


# ---- every wire, just over the threshold ----------------------------------------------------


def _conversation(wire: Wire) -> list[Any]:
    """A conversation of a little more than ``HEAVY_BYTES`` of content: text with escapes and
    non-ASCII, a call and its result, and an image where the wire takes them."""
    line = 'Line with "quotes", a tab\t, é, 😀 and \\ backslash.\n'
    text = line * (HEAVY_BYTES // len(line) + 1)
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
    conversation: list[Any] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": text},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 4 °C"},
        {"role": "assistant", "content": "Sunny in Oslo."},
    ]
    question: list[Any] = [TextPart("And this picture?")]
    if wire.media:
        question.append(MediaPart(Image.from_bytes(PNG, name="dot.png")))
    conversation.append(LangMessage("user", question))
    assert is_heavy_input(conversation)
    assert sum(len(m["content"]) for m in conversation[:4]) < HEAVY_BYTES + 200
    return conversation


async def _sent(wire: Wire, conversation: list[Any]) -> bytes:
    server = Server(wire, [wire.final])
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        lang = wire.lang(client)
        result = await lang.chat(
            conversation, {**wire.options, "functions": FUNCTIONS, "auto_execute": False}
        )
    assert result.answer
    assert len(server.sent) == 1
    return server.sent[0]


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The work done off the loop: its name and its thread, in order."""
    seen: list[tuple[str, int]] = []
    real = _offload._in_heavy_work

    def spied(work: Callable[[], Any]) -> Any:
        seen.append((getattr(work, "func", work).__name__, threading.get_ident()))
        return real(work)

    monkeypatch.setattr(_offload, "_in_heavy_work", spied)
    return seen


@pytest.mark.parametrize("wire", [*WIRES, SIGNED], ids=lambda w: w.name)
async def test_a_request_just_over_the_threshold_is_sent_as_it_would_be_from_the_loop(
    wire: Wire, hops: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation = _conversation(wire)
    offloaded = await _sent(wire, conversation)
    loop_thread = threading.get_ident()
    assert [name for name, _ in hops] == ["_start", "sendable", "_written"]
    assert all(thread != loop_thread for _, thread in hops)
    hops.clear()
    monkeypatch.setattr(_offload, "HEAVY_BYTES", sys.maxsize)  # nothing is heavy
    on_loop = await _sent(wire, conversation)
    assert hops == []
    assert offloaded == on_loop
    assert json.loads(offloaded)  # the body itself, whole


# ---- cancellation ---------------------------------------------------------------------------


@pytest.mark.parametrize("hop", ["_start", "sendable", "_written"])
async def test_a_run_cancelled_while_its_request_is_built_off_the_loop_ends_cleanly(
    hop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancellation waits for the worker, which finishes; nothing is sent, nothing is
    left held (the lock, the collector, the switch interval), and the next run works."""
    started, resume = threading.Event(), threading.Event()
    real = _offload._in_heavy_work

    def held(work: Callable[[], Any]) -> Any:
        if getattr(work, "func", work).__name__ == hop:
            started.set()
            assert resume.wait(10)
        return real(work)

    monkeypatch.setattr(_offload, "_in_heavy_work", held)
    wire = WIRES[0]
    server = Server(wire, [wire.final, wire.final])
    interval = sys.getswitchinterval()
    finished: list[object] = []
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        lang = wire.lang(client)

        async def chat() -> None:
            finished.append(await lang.chat(_conversation(wire)))

        with anyio.fail_after(20):
            async with anyio.create_task_group() as group:
                group.start_soon(chat)
                await anyio.to_thread.run_sync(started.wait)
                group.cancel_scope.cancel()
                resume.set()  # the worker goes on; the run ends once it is done
        assert finished == []
        assert server.sent == []
        assert not _offload._HEAVY.locked()
        assert gc.isenabled()
        assert sys.getswitchinterval() == interval
        started.clear()
        result = await lang.chat(_conversation(wire))  # the next heavy run is served
    assert result.answer
    assert len(server.sent) == 1


# ---- the collector --------------------------------------------------------------------------


@pytest.mark.skipif(
    gc.get_freeze_count() != 0,
    reason="this interpreter starts with frozen objects (3.12): heavy work collects young ones",
)
def test_what_heavy_work_leaves_alive_is_made_old_without_a_walk() -> None:
    with _offload.heavy_work():
        assert not gc.isenabled()
        assert sys.getswitchinterval() == _offload.SWITCH_INTERVAL
        kept = [[i] for i in range(3 * _offload.YOUNG_AFTER_WORK)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert len(gc.get_objects(0)) + len(gc.get_objects(1)) < _offload.YOUNG_AFTER_WORK
    assert any(item is kept[-1] for item in gc.get_objects(2))


def test_a_process_that_froze_objects_keeps_them_frozen_and_collects_young_ones() -> None:
    """``serve`` freezes what it loaded: heavy work there never unfreezes it, and the
    collector runs young collections only (in short walks) while the work goes on."""
    thresholds = gc.get_threshold()
    marker: list[object] = []  # frozen below: unfrozen, it would be in a generation again
    gc.freeze()
    try:
        with _offload.heavy_work():
            assert gc.isenabled()
            assert gc.get_threshold()[:2] == thresholds[:2]
            assert gc.get_threshold()[2] > 1_000_000  # no full collection meanwhile
            kept = [[i] for i in range(3 * _offload.YOUNG_AFTER_WORK)]
            assert len(gc.get_objects(0)) < _offload.YOUNG_AFTER_WORK  # collected as it went
        # Not unfrozen (the count itself moves: a frozen object freed elsewhere leaves it).
        assert not any(
            item is marker for generation in range(3) for item in gc.get_objects(generation)
        )
        assert gc.get_threshold() == thresholds
    finally:
        gc.unfreeze()
    assert len(kept) == 3 * _offload.YOUNG_AFTER_WORK
