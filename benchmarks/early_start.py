"""Early tool start on a scripted stream with a slow tail: wall time of one tool round.

Usage: ``python benchmarks/early_start.py [--quick]``. A threaded server on 127.0.0.1 streams
one Anthropic turn of two calls: ``lookup`` is complete at 0.08 s, then the model spends
``TAIL`` seconds on the second call's arguments (``summarize``), and the stream ends. ``lookup``
takes ``TOOL`` seconds to run, ``summarize`` is instant; the next request answers at once.
Three ways to run the round, each in the same run, best of ``--repeats``:

* raw httpx: read the whole stream, then run both tools, then send the results (what a
  hand-written loop does; the baseline);
* ``Lang.ask`` as before (``early_start=False``): the tools start when the stream ends;
* ``Lang.ask(early_start=True)``: ``lookup`` starts at 0.08 s, while the tail still streams.

Expected: about ``0.08 + TAIL + TOOL`` for the first two, about ``0.08 + max(TAIL, TOOL)``
with early start, so the saving is about ``min(TAIL, TOOL)`` (1 s with the defaults).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import anyio  # noqa: E402
import httpx  # noqa: E402

from aiwrapper import Lang, tool  # noqa: E402

FIRST_CALL_AT = 0.08


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _block(index: int, call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
    start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": "input_json_delta", "partial_json": arguments},
        },
        {"type": "content_block_stop", "index": index},
    ]


def calls_turn(tail: float) -> Iterator[tuple[float, bytes]]:
    """(delay before, bytes) pieces of the turn of calls: the slow tail is call 2's arguments."""
    start = {"type": "message_start", "message": {"model": "claude-bench", "usage": {}}}
    yield FIRST_CALL_AT, _sse(start, *_block(0, "toolu_1", "lookup", '{"city": "Oslo"}'))
    pieces = 10
    words = [f'"w{i}", ' for i in range(pieces)]
    opening = {"type": "tool_use", "id": "toolu_2", "name": "summarize", "input": {}}
    yield 0, _sse({"type": "content_block_start", "index": 1, "content_block": opening})
    for i, word in enumerate(words):
        fragment = ('{"words": [' if i == 0 else "") + word
        delta = {"type": "input_json_delta", "partial_json": fragment}
        yield tail / pieces, _sse({"type": "content_block_delta", "index": 1, "delta": delta})
    delta = {"type": "input_json_delta", "partial_json": '"end"]}'}
    end = [
        {"type": "content_block_delta", "index": 1, "delta": delta},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]
    yield 0, _sse(*end)


def answer_turn() -> Iterator[tuple[float, bytes]]:
    start = {"type": "message_start", "message": {"model": "claude-bench", "usage": {}}}
    text = {"type": "text", "text": ""}
    delta = {"type": "text_delta", "text": "Sunny in Oslo."}
    yield (
        0,
        _sse(
            start,
            {"type": "content_block_start", "index": 0, "content_block": text},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
            {"type": "message_stop"},
        ),
    )


def serve(tail: float) -> ThreadingHTTPServer:
    """A server streaming the calls turn, or the answer once the request holds results."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            pieces = answer_turn() if b"tool_result" in body else calls_turn(tail)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for delay, piece in pieces:
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


async def raw_httpx(client: httpx.AsyncClient, url: str, duration: float) -> str:
    """The baseline: read the whole turn, run both tools, send the results, read the answer."""
    body: dict[str, Any] = {"model": "m", "max_tokens": 100, "stream": True, "messages": []}
    calls: list[dict[str, Any]] = []
    async with client.stream("POST", url, json=body) as response:
        async for line in response.aiter_lines():
            event = json.loads(line[6:]) if line.startswith("data: ") else {}
            if event.get("type") == "content_block_start":
                calls.append(event["content_block"])
    lookup, summarize = tools(duration)
    async with anyio.create_task_group() as group:
        group.start_soon(lookup.invoke, {"city": "Oslo"})
        group.start_soon(summarize.invoke, {"words": ["a"]})
    results = [{"type": "tool_result", "tool_use_id": c["id"], "content": "x"} for c in calls]
    answer = await client.post(url, json={**body, "stream": False, "messages": results})
    return answer.text


async def measure(tail: float, duration: float, repeats: int) -> dict[str, float]:
    server = serve(tail)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    best = {"raw httpx": float("inf"), "early_start=False": float("inf")}
    best["early_start=True"] = float("inf")
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            lang = Lang.anthropic(api_key="k", base_url=base, http_client=client)
            for _ in range(repeats):
                for name in best:
                    began = time.perf_counter()
                    if name == "raw httpx":
                        await raw_httpx(client, base + "/v1/messages", duration)
                    else:
                        early = name.endswith("True")
                        result = await lang.ask(
                            "Weather?", functions=tools(duration), early_start=early
                        )
                        assert result.answer == "Sunny in Oslo.", result.answer
                    best[name] = min(best[name], time.perf_counter() - began)
    finally:
        server.shutdown()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="0.2 s tail and tool, 1 repeat")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    tail = duration = 0.2 if args.quick else 1.0
    repeats = 1 if args.quick else args.repeats
    best = anyio.run(measure, tail, duration, repeats)
    print(f"one tool round, tail {tail:g} s, slow tool {duration:g} s (best of {repeats})")
    for name, seconds in best.items():
        print(f"  {name:<18} {seconds:6.3f} s")
    early = best["early_start=True"]
    saved, versus_raw = best["early_start=False"] - early, best["raw httpx"] - early
    print(f"  saved by early start: {saved:.3f} s (vs raw httpx: {versus_raw:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
