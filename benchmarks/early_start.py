"""Early tool start on a scripted stream with a slow tail: wall time of one tool round.

Usage: ``python benchmarks/early_start.py [--quick] [--repeats N]``. A threaded server on
127.0.0.1 streams one turn of two calls, on the Anthropic wire and on the OpenAI Chat
Completions wire: ``lookup`` is complete at 0.08 s, then the model spends ``TAIL`` seconds on
the second call's arguments (``summarize``), and the stream ends. ``lookup`` takes ``TOOL``
seconds to run, ``summarize`` is instant; the next request answers at once. Three ways to run
the round, each in the same run, best of ``--repeats``:

* raw httpx: read the whole stream, then run both tools, then send the results (what a
  hand-written loop does; the baseline);
* ``Lang.ask`` as before (``early_start=False``): the tools start when the stream ends;
* ``Lang.ask(early_start=True)``: ``lookup`` starts at 0.08 s, while the tail still streams
  (on OpenAI, once ``summarize`` has begun: that wire ends calls only with the turn).

Expected: about ``0.08 + TAIL + TOOL`` for the first two, about ``0.08 + max(TAIL, TOOL)``
with early start, so the saving is about ``min(TAIL, TOOL)`` (1 s with the defaults).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import anyio  # noqa: E402
import httpx  # noqa: E402

from aiwrapper import Lang, tool  # noqa: E402

FIRST_CALL_AT = 0.08
PIECES = 10  # the second call's arguments arrive in this many fragments over the tail
Pieces = Iterator[tuple[float, bytes]]  # (seconds to wait before, bytes to send)


def _tail_words() -> list[str]:
    """The second call's argument fragments: ``{"words": ["w0", ..., "end"]}``."""
    words = [('{"words": [' if i == 0 else "") + f'"w{i}", ' for i in range(PIECES)]
    return [*words, '"end"]}']


# --- Anthropic Messages ---------------------------------------------------------------------


def _anthropic(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _anthropic_start(index: int, call_id: str, name: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return {"type": "content_block_start", "index": index, "content_block": block}


def _anthropic_delta(index: int, fragment: str) -> dict[str, Any]:
    delta = {"type": "input_json_delta", "partial_json": fragment}
    return {"type": "content_block_delta", "index": index, "delta": delta}


def anthropic_calls(tail: float) -> Pieces:
    start = {"type": "message_start", "message": {"model": "claude-bench", "usage": {}}}
    first = [_anthropic_start(0, "toolu_1", "lookup"), _anthropic_delta(0, '{"city": "Oslo"}')]
    stop = {"type": "content_block_stop", "index": 0}
    yield (
        FIRST_CALL_AT,
        _anthropic(start, *first, stop, _anthropic_start(1, "toolu_2", "summarize")),
    )
    *words, last = _tail_words()
    for word in words:
        yield tail / PIECES, _anthropic(_anthropic_delta(1, word))
    end = {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}}
    yield (
        0,
        _anthropic(
            _anthropic_delta(1, last),
            {"type": "content_block_stop", "index": 1},
            end,
            {"type": "message_stop"},
        ),
    )


def anthropic_answer() -> Pieces:
    start = {"type": "message_start", "message": {"model": "claude-bench", "usage": {}}}
    text = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "Sunny in Oslo."}
    yield (
        0,
        _anthropic(
            start,
            {"type": "content_block_start", "index": 0, "content_block": text},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
            {"type": "message_stop"},
        ),
    )


# --- OpenAI Chat Completions ----------------------------------------------------------------


def _openai(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return b"data: " + json.dumps({"model": "gpt-bench", "choices": [choice]}).encode() + b"\n\n"


def _openai_call(index: int, fragment: str, call_id: str = "", name: str = "") -> bytes:
    function = {"arguments": fragment, **({"name": name} if name else {})}
    call = {"index": index, **({"id": call_id, "type": "function"} if call_id else {})}
    return _openai({"tool_calls": [{**call, "function": function}]})


def openai_calls(tail: float) -> Pieces:
    first = _openai_call(0, '{"city": "Oslo"}', "call_1", "lookup")
    yield FIRST_CALL_AT, first + _openai_call(1, "", "call_2", "summarize")
    *words, last = _tail_words()
    for word in words:
        yield tail / PIECES, _openai_call(1, word)
    yield 0, _openai_call(1, last) + _openai({}, "tool_calls") + b"data: [DONE]\n\n"


def openai_answer() -> Pieces:
    text = _openai({"content": "Sunny in Oslo."}) + _openai({}, "stop")
    yield 0, text + b"data: [DONE]\n\n"


@dataclass(frozen=True)
class Wire:
    """How one wire streams the scenario, and how a hand-written client reads it."""

    name: str
    path: str
    calls: Callable[[float], Pieces]
    answer: Callable[[], Pieces]
    make: Callable[[str, httpx.AsyncClient], Lang]
    call_ids: Callable[[dict[str, Any]], list[str]]  # ids of the calls a data line starts


def _anthropic_ids(event: dict[str, Any]) -> list[str]:
    block = event.get("content_block") or {}
    return [block["id"]] if block.get("type") == "tool_use" else []


def _openai_ids(event: dict[str, Any]) -> list[str]:
    delta = (event.get("choices") or [{}])[0].get("delta") or {}
    return [c["id"] for c in delta.get("tool_calls") or () if c.get("id")]


WIRES = [
    Wire(
        "anthropic",
        "/v1/messages",
        anthropic_calls,
        anthropic_answer,
        lambda base, c: Lang.anthropic(api_key="k", base_url=base, http_client=c),
        _anthropic_ids,
    ),
    Wire(
        "openai",
        "/v1/chat/completions",
        openai_calls,
        openai_answer,
        lambda base, c: Lang.openai(api_key="k", base_url=base + "/v1", http_client=c),
        _openai_ids,
    ),
]


def serve(tail: float) -> ThreadingHTTPServer:
    """A server streaming the calls turn, or the answer once the request holds results."""
    by_path = {wire.path: wire for wire in WIRES}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            wire = by_path[self.path]
            answered = any(mark in body for mark in (b"tool_result", b'"tool_call_id"'))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for delay, piece in wire.answer() if answered else wire.calls(tail):
                time.sleep(delay)
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def tools(duration: float) -> list[Any]:
    @tool
    async def lookup(city: str) -> str:
        """Look up the weather in a city (slow)."""
        await anyio.sleep(duration)
        return f"sunny in {city}"

    @tool
    def summarize(words: list[str]) -> int:
        """Count words (instant)."""
        return len(words)

    return [lookup, summarize]


async def raw_httpx(client: httpx.AsyncClient, wire: Wire, url: str, duration: float) -> str:
    """The baseline: read the whole turn, run both tools, send the results, read the answer."""
    body: dict[str, Any] = {"model": "m", "stream": True, "messages": []}
    ids: list[str] = []
    async with client.stream("POST", url, json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: {"):
                ids += wire.call_ids(json.loads(line[6:]))
    lookup, summarize = tools(duration)
    async with anyio.create_task_group() as group:
        group.start_soon(lookup.invoke, {"city": "Oslo"})
        group.start_soon(summarize.invoke, {"words": ["a"]})
    results = [{"type": "tool_result", "tool_use_id": i, "content": "x"} for i in ids]
    answer = await client.post(url, json={**body, "messages": results})
    return answer.text


WAYS = ("raw httpx", "early_start=False", "early_start=True")


async def _once(client: httpx.AsyncClient, wire: Wire, base: str, way: str, tool: float) -> None:
    if way == "raw httpx":
        await raw_httpx(client, wire, base + wire.path, tool)
        return
    lang = wire.make(base, client)
    early = way == "early_start=True"
    result = await lang.ask("Weather?", functions=tools(tool), early_start=early)
    assert result.answer == "Sunny in Oslo.", result.answer
    assert [c.status for c in result.function_calls] == ["done", "done"]


async def measure(tail: float, tool: float, repeats: int) -> dict[tuple[str, str], float]:
    """Best wall time of each (wire, way), all measured in this run."""
    server = serve(tail)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    best = {(wire.name, way): float("inf") for wire in WIRES for way in WAYS}
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            for _ in range(repeats):
                for wire in WIRES:
                    for way in WAYS:
                        began = time.perf_counter()
                        await _once(client, wire, base, way, tool)
                        elapsed = time.perf_counter() - began
                        best[wire.name, way] = min(best[wire.name, way], elapsed)
    finally:
        server.shutdown()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.2 s tail and tool, 1 repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    tail = tool_seconds = 0.2 if args.quick else 1.0
    repeats = 1 if args.quick else args.repeats
    best = anyio.run(measure, tail, tool_seconds, repeats)
    print(f"one tool round, tail {tail:g} s, slow tool {tool_seconds:g} s (best of {repeats})")
    for wire in WIRES:
        print(wire.name)
        for way in WAYS:
            print(f"  {way:<18} {best[wire.name, way]:6.3f} s")
        early = best[wire.name, "early_start=True"]
        saved = best[wire.name, "early_start=False"] - early
        versus_raw = best[wire.name, "raw httpx"] - early
        print(f"  saved by early start: {saved:.3f} s (vs raw httpx: {versus_raw:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
