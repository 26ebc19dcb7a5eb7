"""What the relay writes, and how often: pre-written events, batched writes, one write a turn.

Each front-end writes its delta events from an ``SSEShape`` (the bytes ``sse`` would write);
the gateway sends the events already waiting in one body message (``RunStream.ready``); a
JSON answer carries its length; under ``serve``'s uvicorn a connection's writes within one
turn of the event loop reach the socket together (``Corked``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._runevents import TextDelta
from aiwrapper.gateway import Gateway
from aiwrapper.gateway._guard import Corked
from aiwrapper.providers._serving import SLOT, SSEShape, sse

pytestmark = pytest.mark.anyio

TEXTS = ["", "plain", "é 🙂 \u2028", 'quote " and \\ and \n\t\x00', "x" * 10_000]


@pytest.mark.anyio(False)
@pytest.mark.parametrize("text", TEXTS)
def test_a_shape_writes_the_bytes_sse_writes(text: str) -> None:
    one = SSEShape({"choices": [{"delta": {"content": SLOT}}], "usage": None})
    assert one.text(text) == sse({"choices": [{"delta": {"content": text}}], "usage": None})
    data = {"type": "delta", "sequence_number": SLOT, "item_id": "m", "delta": SLOT}
    numbered = SSEShape(data, "delta")
    assert numbered.numbered(41, text) == sse(
        {**data, "sequence_number": 41, "delta": text}, "delta"
    )


@pytest.mark.anyio(False)
@pytest.mark.parametrize("slots", [0, 3])
def test_a_shape_takes_one_or_two_slots(slots: int) -> None:
    with pytest.raises(ValueError, match="one or two slots"):
        SSEShape({f"k{i}": SLOT for i in range(slots)})


class _Messages:
    """An ASGI server's side of one exchange: the request, then what the app sends."""

    def __init__(self, body: dict[str, Any]) -> None:
        import json

        self.request = json.dumps(body).encode()
        self.sent: list[dict[str, Any]] = []
        self.done = asyncio.Event()

    async def receive(self) -> dict[str, Any]:
        if self.request:
            request, self.request = self.request, b""
            return {"type": "http.request", "body": request, "more_body": False}
        await self.done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            self.done.set()


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "headers": [(b"content-type", b"application/json"), (b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 50000),
    }


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_events_already_waiting_go_out_in_one_body_message(anyio_backend: str) -> None:
    words = [f"w{i} " for i in range(200)]
    gateway = Gateway({"m": Lang.scripted(["".join(words)])})
    exchange = _Messages(
        {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
    )
    await gateway(_scope("/v1/chat/completions"), exchange.receive, exchange.send)
    bodies = [m["body"] for m in exchange.sent if m["type"] == "http.response.body"]
    text = b"".join(bodies).decode()
    assert text.endswith("data: [DONE]\n\n")
    chunks = text.count('"content":')
    assert chunks > 100
    assert len(bodies) * 10 < chunks  # dozens of events to a message, not one each


async def test_run_stream_ready_hands_over_the_waiting_events_and_leaves_the_end() -> None:
    lang = Lang.scripted(["one two three"])
    async with lang.stream("Hi") as run:
        first = await run.__anext__()
        waiting = run.ready()
        later = [event async for event in run]
        assert run.ready() == []
    texts = [e.text for e in [first, *waiting, *later] if isinstance(e, TextDelta)]
    assert "".join(texts) == "one two three"
    assert waiting  # the scripted turn's events were all waiting behind the first


async def test_a_json_answer_carries_its_length() -> None:
    gateway = Gateway({"m": Lang.scripted(["pong"])})
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        reply = await client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
        )
    assert reply.headers["content-length"] == str(len(reply.content))
    assert reply.json()["choices"][0]["message"]["content"] == "pong"


class _Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = self.aborted = False
        self.buffered = 7

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def write_eof(self) -> None:
        self.writes.append(b"<eof>")

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def get_extra_info(self, name: str) -> str:
        return f"info {name}"


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_corked_transport_writes_a_turns_writes_together(anyio_backend: str) -> None:
    raw = _Transport()
    corked = Corked(raw, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.write(b"head ")
    corked.write(b"")
    corked.write(b"body")
    assert (raw.writes, corked.get_write_buffer_size()) == ([], 7 + 9)
    await asyncio.sleep(0)
    corked.write(b"next")
    await asyncio.sleep(0)
    assert raw.writes == [b"head body", b"next"]
    assert corked.get_extra_info("peername") == "info peername"
    corked.write(b"last")
    corked.write_eof()
    corked.write(b"bye")
    corked.close()
    assert (raw.writes[2:], raw.closed) == ([b"last", b"<eof>", b"bye"], True)
    await asyncio.sleep(0)  # the flush scheduled for "bye" finds nothing left to write
    assert len(raw.writes) == 5


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_aborted_corked_transport_drops_what_waits(anyio_backend: str) -> None:
    raw = _Transport()
    corked = Corked(raw, asyncio.get_running_loop())  # type: ignore[arg-type]
    corked.write(b"never")
    corked.abort()
    await asyncio.sleep(0)
    assert (raw.writes, raw.aborted) == ([], True)
