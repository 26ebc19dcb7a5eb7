"""A big body is read whole off the event loop, and nothing of it is left for the loop to free.

What holds the loop while a big body is read is measured by ``test_stall_benchmark``; here
the structure that keeps it free is asserted, on every front-end: the front-end's decoding
runs in a worker thread with the garbage collector paused and a fine switch interval (both
restored after); the parsed body is freed in that thread, refused or served (before, a
refusal carried it to the loop in its traceback's frames, and the loop freed it there); and
what a served read leaves alive is already old when the loop gets it.
"""

from __future__ import annotations

import gc
import json
import sys
import threading
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._run import _offload
from aiwrapper.gateway import Gateway, _reading
from aiwrapper.providers._serving import MAX_TOOLS, GatewayError

pytestmark = pytest.mark.anyio

PATHS = {
    "openai": "/v1/chat/completions",
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
}
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOL = {
    "openai": lambda i: {"type": "function", "function": {"name": f"t{i}", "parameters": SCHEMA}},
    "responses": lambda i: {"type": "function", "name": f"t{i}", "parameters": SCHEMA},
    "anthropic": lambda i: {"name": f"t{i}", "input_schema": SCHEMA},
}


def _body(wire: str, *, tools: int = 0, messages: int = 1) -> dict[str, Any]:
    talk = [{"role": "user", "content": f"message {i} " + "x" * 100} for i in range(messages)]
    body: dict[str, Any] = {"model": "local", "input" if wire == "responses" else "messages": talk}
    if wire == "anthropic":
        body["max_tokens"] = 16
    if tools:
        body["tools"] = [TOOL[wire](i) for i in range(tools)]
    return body


class _Freed:
    """Notes the thread that frees it."""

    def __init__(self, threads: list[int]) -> None:
        self.threads = threads

    def __del__(self) -> None:
        self.threads.append(threading.get_ident())


class _Holding(dict[str, Any]):
    """A message dict holding an object, not as a key, that notes when it is freed."""

    freed: _Freed


def _full_collections() -> bool:
    """Whether the collector could walk everything now: not while a big body is read (it is
    paused, or kept to young collections where the process holds frozen objects)."""
    return gc.isenabled() and gc.get_threshold()[2] < 1_000_000


class _Watched:
    """A front-end noting, when it decodes, its thread, whether a full collection could run
    and the switch interval."""

    def __init__(self, real: Any, seen: list[tuple[int, bool, float]]) -> None:
        self.real = real
        self.seen = seen

    def decode(self, body: Any) -> Any:
        self.seen.append((threading.get_ident(), _full_collections(), sys.getswitchinterval()))
        return self.real.decode(body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


class _RefusingInAHandler(_Watched):
    """A front-end refusing every body from an ``except`` block, with another cause."""

    def decode(self, body: Any) -> Any:
        self.seen.append((threading.get_ident(), _full_collections(), sys.getswitchinterval()))
        try:
            body["no such field"]
        except KeyError:  # the KeyError's traceback holds this frame, and so ``body``
            raise GatewayError(400, "invalid_request", "refused") from ValueError("why")


async def _post(
    wire: str,
    body: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    watched: type[_Watched] = _Watched,
) -> Any:
    """POST ``body``; returns the reply, what decode saw, and the threads that freed the body."""
    real_parse = _reading._parse
    freed: list[int] = []

    def parse(data: bytes) -> Any:
        parsed = real_parse(data)
        talk = parsed["messages" if wire != "responses" else "input"]
        talk[-1] = _Holding(talk[-1])  # its keys untouched: the front-end refuses extra ones
        talk[-1].freed = _Freed(freed)
        return parsed

    monkeypatch.setattr(_reading, "_parse", parse)
    gateway = Gateway({"local": Lang.scripted(["done"])})
    seen: list[tuple[int, bool, float]] = []
    gateway._fronts.by_path[PATHS[wire]] = watched(gateway._fronts.by_path[PATHS[wire]], seen)
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        headers = {"content-type": "application/json"}
        reply = await client.post(PATHS[wire], content=json.dumps(body), headers=headers)
    return reply, seen, freed


@pytest.mark.parametrize("wire", list(PATHS))
async def test_a_big_refused_body_is_read_and_freed_off_the_loop(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _body(wire, tools=5 * MAX_TOOLS)
    assert len(json.dumps(body)) > _reading._PREEMPTIBLE_BODY_BYTES
    interval = sys.getswitchinterval()
    reply, seen, freed = await _post(wire, body, monkeypatch)
    assert reply.status_code == 400
    assert f"at most {MAX_TOOLS} tools" in reply.text
    loop_thread = threading.get_ident()
    assert seen == [(seen[0][0], False, _offload.SWITCH_INTERVAL)]
    assert seen[0][0] != loop_thread
    assert len(freed) == 1
    assert freed[0] != loop_thread  # not carried to the loop in the refusal's traceback
    assert gc.isenabled()
    assert sys.getswitchinterval() == interval


@pytest.mark.parametrize("wire", list(PATHS))
async def test_a_big_served_body_is_read_and_freed_off_the_loop(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = _body(wire, messages=2_000)
    assert len(json.dumps(body)) > _reading._PREEMPTIBLE_BODY_BYTES
    reply, seen, freed = await _post(wire, body, monkeypatch)
    assert reply.status_code == 200
    assert "done" in reply.text
    loop_thread = threading.get_ident()
    assert seen[0][:2] == (seen[0][0], False)
    assert seen[0][0] != loop_thread
    assert len(freed) == 1
    assert freed[0] != loop_thread
    assert gc.isenabled()


async def test_a_refusal_from_an_except_block_leaves_no_part_of_the_body_to_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = _body("openai", messages=2_000)
    reply, seen, freed = await _post("openai", body, monkeypatch, _RefusingInAHandler)
    assert reply.status_code == 400
    assert reply.json()["error"]["message"] == "refused"
    assert len(freed) == 1
    assert freed[0] == seen[0][0] != threading.get_ident()  # freed in the worker that read it


async def test_a_body_that_is_not_json_restores_the_collector_and_the_interval() -> None:
    interval = sys.getswitchinterval()
    transport = httpx.ASGITransport(app=Gateway({}), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        body = b'{"model": "local", "messages": [' + b'"x", ' * 100_000 + b"}"
        headers = {"content-type": "application/json"}
        reply = await client.post(PATHS["openai"], content=body, headers=headers)
    assert reply.status_code == 400
    assert reply.json()["error"]["message"] == "the body is not valid JSON"
    assert gc.isenabled()
    assert sys.getswitchinterval() == interval


def test_taking_a_body_apart_leaves_whole_what_something_else_still_holds() -> None:
    kept = {"properties": {"city": {"type": "string"}}, "required": ["city"]}
    freed: list[int] = []
    held = [{"tools": [{"schema": kept}], "messages": [{"a": [1, {"b": [_Freed(freed)]}]}]}]
    _offload.take_apart(held)
    assert held == []
    assert freed == [threading.get_ident()]
    assert kept == {"properties": {"city": {"type": "string"}}, "required": ["city"]}


async def test_what_a_big_read_leaves_alive_is_collected_before_the_loop_gets_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The conversation is old when the loop gets it: no young collection there walks it."""
    young: list[int] = []
    real = _reading._read_off_loop

    def reading(front: Any, chunks: list[bytes]) -> Any:
        outcome = real(front, chunks)
        young.append(len(gc.get_objects(0)) + len(gc.get_objects(1)))
        return outcome

    monkeypatch.setattr(_reading, "_read_off_loop", reading)
    reply, _, freed = await _post("openai", _body("openai", messages=6_000), monkeypatch)
    assert reply.status_code == 200
    assert len(freed) == 1
    assert len(young) == 1
    assert young[0] < _offload.YOUNG_AFTER_WORK  # not the 6,000 messages' 20,000 objects


@pytest.mark.parametrize("wire", list(PATHS))
async def test_a_big_served_conversation_is_freed_off_the_loop(
    wire: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its two lists of messages held the last references: emptied in a worker, a step at a
    time, once the answer is sent; a small one is left to the loop."""
    emptied: list[tuple[int, list[int]]] = []
    real = _reading._empty_in_steps

    def spied(lists: tuple[list[Any], ...]) -> None:
        sizes = [len(messages) for messages in lists]
        real(lists)
        assert all(not messages for messages in lists)
        emptied.append((threading.get_ident(), sizes))

    monkeypatch.setattr(_reading, "_empty_in_steps", spied)
    reply, _, _ = await _post(wire, _body(wire, messages=2_000), monkeypatch)
    assert reply.status_code == 200
    assert "done" in reply.text
    assert emptied == [(emptied[0][0], [2_000, 2_000])]
    assert emptied[0][0] != threading.get_ident()
    emptied.clear()
    reply, _, _ = await _post(wire, _body(wire, messages=10), monkeypatch)
    assert reply.status_code == 200
    assert emptied == []
