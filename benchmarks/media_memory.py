"""A request carrying a 20 MB PDF: peak memory against the file's size, and base64 made once.

Usage: ``python benchmarks/media_memory.py [--quick] [--megabytes N] [--rounds N]``. A tool
returns a ``Document`` of generated ``%PDF-`` bytes; a real provider encoder writes each
request (Anthropic Messages, where the PDF goes as base64 in the tool result, and OpenAI Chat
Completions, where it goes as a ``data:`` URL), and an ``httpx.MockTransport`` answers with a
tool call until the last round. After a warm-up run on a small file (imports, the model
catalogue), ``tracemalloc`` measures the run on the large one, whose bytes (as a file read
from disk) count in full:

* the peak while the requests carrying the PDF are built and sent, as a multiple of the
  file's size. The floor is about 3.67x: the bytes (1x), their base64 text, kept by the part
  so that a replay does not encode again (1.33x), and the request body (1.33x). The target is
  below 4x: neither the JSON writer, nor the str-to-bytes step, nor a data: URL built per
  request may copy the body again, and a round's body must be freed before the next;
* how often ``base64.b64encode`` ran on the file over ``--rounds`` requests that replay it
  (target: once).

Expected: about 3.7x and 1 encoding on each wire. Exit status 1 when one misses its target.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import anyio  # noqa: E402
import httpx  # noqa: E402

from aiwrapper import Document, Lang, tool  # noqa: E402

TARGET = 4.0
WIRES = ("anthropic", "openai")


def pdf_bytes(size: int) -> bytes:
    """``size`` bytes that open as a PDF (the rest is padding: only the size matters here)."""
    head = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
    return head + bytes(size - len(head))


def anthropic_reply(call: str | None, turn: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "Read."}]
    if call is not None:
        content = [{"type": "tool_use", "id": f"toolu_{turn}", "name": call, "input": {}}]
    usage = {"input_tokens": 10, "output_tokens": 5}
    stop = "end_turn" if call is None else "tool_use"
    return {"role": "assistant", "content": content, "stop_reason": stop, "usage": usage}


def openai_reply(call: str | None, turn: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": "Read." if call is None else None}
    if call is not None:
        function = {"name": call, "arguments": "{}"}
        message["tool_calls"] = [{"id": f"call_{turn}", "type": "function", "function": function}]
    choice = {
        "index": 0,
        "message": message,
        "finish_reason": "stop" if call is None else "tool_calls",
    }
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return {"id": "c", "object": "chat.completion", "choices": [choice], "usage": usage}


class Server:
    """Answers each request with the next scripted turn; keeps the size of each body only."""

    def __init__(self, wire: str, rounds: int) -> None:
        self.reply = anthropic_reply if wire == "anthropic" else openai_reply
        self.rounds = rounds
        self.sizes: list[int] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sizes.append(len(request.content))  # the body is never parsed: no copy of it
        turn = len(self.sizes)
        call = "fetch_report" if turn == 1 else "note" if turn <= self.rounds else None
        return httpx.Response(200, json=self.reply(call, turn))


class Counted:
    """``base64.b64encode``, counting the calls made on one bytes object."""

    def __init__(self, watched: bytes) -> None:
        self.watched = watched
        self.calls = 0
        self.original = base64.b64encode

    def __call__(self, data: Any, altchars: Any = None) -> bytes:
        if data is self.watched:
            self.calls += 1
        return self.original(data, altchars)


def lang_for(wire: str, client: httpx.AsyncClient) -> Lang:
    if wire == "anthropic":
        return Lang.anthropic("claude-sonnet-4-5", api_key="k", http_client=client)
    return Lang.openai("gpt-4o", api_key="k", api="chat", http_client=client)


async def ask(wire: str, data: bytes, rounds: int) -> tuple[str, Server]:
    """The tool loop: the tool returns ``data`` as a PDF, ``rounds`` requests replay it."""
    report = Document.from_bytes(data, name="report.pdf")

    @tool
    def fetch_report() -> Document:
        """Fetch the quarterly report."""
        return report

    @tool
    def note() -> str:
        """Take a note."""
        return "noted"

    server = Server(wire, rounds)
    async with httpx.AsyncClient(transport=httpx.MockTransport(server)) as client:
        lang = lang_for(wire, client)
        result = await lang.ask(
            "Summarize the report.", functions=[fetch_report, note], stream=False
        )
    return result.answer, server


async def run(wire: str, size: int, rounds: int) -> dict[str, Any]:
    await ask(wire, pdf_bytes(1000), rounds)  # imports, the model catalogue, first-use caches
    data = pdf_bytes(size)  # the file as read from disk: counted below as its size
    counted = Counted(data)
    base64.b64encode = counted  # type: ignore[assignment]
    started = time.perf_counter()
    tracemalloc.start()
    try:
        answer, server = await ask(wire, data, rounds)
        peak = size + tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        base64.b64encode = counted.original
    return {
        "answer": answer,
        "peak": peak,
        "encodings": counted.calls,
        "carrying": sum(1 for s in server.sizes if s > size),
        "body": max(server.sizes),
        "seconds": time.perf_counter() - started,
    }


def report(wire: str, size: int, rounds: int, got: dict[str, Any]) -> bool:
    """Print one wire's figures; whether both met their targets."""
    ratio = got["peak"] / size
    memory_ok = ratio < TARGET and got["answer"] == "Read."
    encoded_ok = got["encodings"] == 1 and got["carrying"] == rounds
    print(f"{wire}: largest request body {got['body']:,} bytes, {got['seconds']:.2f} s")
    print(
        f"  peak memory: {got['peak']:,} bytes = {ratio:.2f}x the file "
        f"(target < {TARGET:g}x): {'ok' if memory_ok else 'MISSED'}"
    )
    print(
        f"  base64 encodings over {got['carrying']} requests carrying it: {got['encodings']} "
        f"(target 1): {'ok' if encoded_ok else 'MISSED'}"
    )
    return memory_ok and encoded_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 10 MB file")
    parser.add_argument("--megabytes", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=5, help="requests that carry the file")
    args = parser.parse_args(argv)
    size = int((10.0 if args.quick else args.megabytes) * 1_000_000)
    print(f"file: {size:,} bytes (PDF), returned by a tool, {args.rounds} rounds replaying it")
    results = [report(w, size, args.rounds, anyio.run(run, w, size, args.rounds)) for w in WIRES]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
