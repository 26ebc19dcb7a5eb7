"""How long one big request body holds the gateway's event loop, per front-end.

Usage: ``python benchmarks/gateway_stall.py [--quick] [--server] [--runs N] [--check MS]``.

A probe task sleeps 1 ms in a loop on the gateway's event loop and keeps its worst
overshoot (the loop lag) while one request is answered. Each front-end (Chat Completions,
Responses, Anthropic Messages) gets three kinds of body, at 1 MiB and near the default size
limit (8 MiB):

- ``tools``: a body declaring tens of thousands of tools, which the tool cap refuses (400)
  once the body is read: what the gateway does with a body before any model is asked;
- ``messages``: a conversation of thousands of messages, and ``text``: one message of that
  size (80-character lines), each served (200) by an OpenAI backend behind an in-process mock
  transport. On top of reading the body, ``Lang.chat`` copies and checks the conversation,
  encodes the upstream request and writes it to JSON (in worker threads past 256 KiB of
  content: ``aiwrapper/_run/_offload.py``), and the gateway frees the conversation.

``idle`` is a tiny request, and ``floor`` a worker thread computing in pure Python for a
second (with the switch interval the gateway reads big bodies with): the lag the machine
itself adds (other processes, the scheduler preempting the thread that holds the GIL), against
which the others are read. Each case runs a few times; the table gives the worst lag
in the worst, the median and the best run. In-process by default (httpx's ASGITransport, the
client on the same loop); ``--server`` also runs the gateway under uvicorn in a child process
(set up as ``serve`` sets it up), the probe on its loop, the client in this process.

``--check MS`` measures only the floor and the near-limit bodies (refused and served), in
process, and exits 1 when a front-end's best run lags more than MS, or than 1.5 times the
floor's best run on a machine that busy (the benchmark tests run it).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402

from aiwrapper import Lang  # noqa: E402
from aiwrapper._run import _offload  # noqa: E402
from aiwrapper.gateway import Gateway  # noqa: E402

MIB = 1024 * 1024
NEAR_LIMIT = 8 * MIB - 256 * 1024  # under the default max_body_bytes (8 MiB)
FLOOR_SECONDS = 1.0  # about as long as a worker reads a near-limit body
PATHS = {
    "chat": "/v1/chat/completions",
    "responses": "/v1/responses",
    "anthropic": "/v1/messages",
}
_ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def _tool(front: str, i: int) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": f"the city {i}"}},
        "required": ["city"],
    }
    if front == "chat":
        return {
            "type": "function",
            "function": {"name": f"tool_{i}", "description": "a tool", "parameters": schema},
        }
    if front == "responses":
        return {"type": "function", "name": f"tool_{i}", "parameters": schema}
    return {"name": f"tool_{i}", "description": "a tool", "input_schema": schema}


def _message(front: str, i: int) -> dict[str, Any]:
    role = "user" if i % 2 == 0 else "assistant"
    return {"role": role, "content": f"message {i}: " + "lorem ipsum " * 10}


def _envelope(front: str) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "local"}
    if front == "anthropic":
        body["max_tokens"] = 16
    return body


def make_body(front: str, kind: str, size: int) -> bytes:
    """A request body of ``kind`` for ``front``, as close to ``size`` bytes as items allow."""
    body = _envelope(front)
    talk = "input" if front == "responses" else "messages"
    body[talk] = [{"role": "user", "content": "Hi"}]
    if kind == "text":  # lines of 80 characters: a newline escape in every one
        body[talk][0]["content"] = ("lorem ipsum " * 6 + "dolor si\n") * ((size - 200) // 82)
    elif kind != "idle":
        make: Callable[[str, int], dict[str, Any]] = _tool if kind == "tools" else _message
        count = max(1, (size - 200) // (len(json.dumps(make(front, 99_999))) + 2))
        items = [make(front, i) for i in range(count)]
        if kind == "messages":
            items[-1] = {"role": "user", "content": "last"}
        body["tools" if kind == "tools" else talk] = items
    return json.dumps(body).encode()


def backend() -> Lang:
    """An OpenAI route whose upstream answers every request at once, in process."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=_ANSWER)

    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    options = {"stream": False}  # one JSON answer, like _ANSWER
    return Lang.openai("gpt-4o", api_key="k", http_client=client, max_retries=0, options=options)


class Probe:
    """A task that sleeps 1 ms in a loop and keeps the worst overshoot since ``reset``."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.running = True

    def reset(self) -> None:
        self.worst = 0.0

    async def run(self) -> None:
        while self.running:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - start - 0.001)


# ---- in process -----------------------------------------------------------------------------


async def in_process(cases: list[tuple[str, str, int, bytes]], runs: int) -> list[list[float]]:
    """Per case, each run's worst loop lag in ms, the gateway on this loop."""
    gateway = Gateway({"local": backend()})
    transport = httpx.ASGITransport(app=gateway, client=("127.0.0.1", 50000))
    probe = Probe()
    task = asyncio.ensure_future(probe.run())
    lags: list[list[float]] = []
    headers = {"content-type": "application/json"}
    base = "http://127.0.0.1"
    async with httpx.AsyncClient(transport=transport, base_url=base, timeout=120) as client:
        await _warm_up(client.post, cases)
        for front, kind, _, body in cases:
            seen = []
            for _ in range(runs):
                await asyncio.sleep(0.02)
                probe.reset()
                if kind == "floor":
                    await asyncio.to_thread(_spin, FLOOR_SECONDS)
                else:
                    reply = await client.post(PATHS[front], content=body, headers=headers)
                    _check(front, kind, reply)
                await asyncio.sleep(0.02)  # what the request left behind is freed meanwhile
                seen.append(probe.worst * 1000)
            lags.append(seen)
    probe.running = False
    await task
    return lags


def _spin(seconds: float) -> None:
    """Pure Python for ``seconds``, with the switch interval the gateway reads big bodies with."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(_offload.SWITCH_INTERVAL)
    try:
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            sum(range(100))
    finally:
        sys.setswitchinterval(interval)


async def _warm_up(post: Any, cases: list[tuple[str, str, int, bytes]]) -> None:
    """One tiny request per wire: the first of each imports and sets up what it needs."""
    headers = {"content-type": "application/json"}
    for front, kind, _, body in cases:
        if kind == "idle":
            await post(PATHS[front], content=body, headers=headers)


def _check(front: str, kind: str, reply: httpx.Response) -> None:
    wanted = 400 if kind == "tools" else 200
    if reply.status_code != wanted:
        raise SystemExit(f"{front} {kind}: status {reply.status_code}: {reply.text[:300]}")


# ---- behind uvicorn -------------------------------------------------------------------------


def child() -> None:
    """Serve the gateway under uvicorn, with the probe on its loop; the port goes first."""
    import socket

    import uvicorn

    from aiwrapper.gateway._server import settle

    probe = Probe()
    gateway = Gateway({"local": backend()})

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/_probe/"):
            if scope["path"] == "/_probe/reset":
                probe.reset()
            elif scope["path"] == "/_probe/spin":
                await asyncio.to_thread(_spin, FLOOR_SECONDS)
            data = json.dumps({"worst_ms": probe.worst * 1000}).encode()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": data})
            return
        await gateway(scope, receive, send)

    async def serve() -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)  # connections wait in the backlog until uvicorn serves
        print(listener.getsockname()[1], flush=True)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        settle(config)  # as serve does
        task = asyncio.ensure_future(probe.run())
        await uvicorn.Server(config).serve(sockets=[listener])
        probe.running = False
        await task

    asyncio.run(serve())


def behind_server(cases: list[tuple[str, str, int, bytes]], runs: int) -> list[list[float]]:
    """Per case, each run's worst loop lag in ms, the gateway under uvicorn in a child."""
    command = [sys.executable, __file__, "--child"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        base = f"http://127.0.0.1:{int(process.stdout.readline())}"
        lags: list[list[float]] = []
        headers = {"content-type": "application/json"}
        with httpx.Client(base_url=base, timeout=120) as client:
            for front, kind, _, body in cases:
                if kind == "idle":  # the first request of each wire imports and sets up
                    client.post(PATHS[front], content=body, headers=headers)
            for front, kind, _, body in cases:
                seen = []
                for _ in range(runs):
                    time.sleep(0.02)
                    client.get("/_probe/reset")
                    if kind == "floor":
                        client.get("/_probe/spin")
                    else:
                        reply = client.post(PATHS[front], content=body, headers=headers)
                        _check(front, kind, reply)
                    time.sleep(0.02)
                    seen.append(client.get("/_probe/read").json()["worst_ms"])
                lags.append(seen)
        return lags
    finally:
        process.terminate()
        process.wait(10)


# ---- the table ------------------------------------------------------------------------------


def cases_for(sizes: list[int], kinds: tuple[str, ...]) -> list[tuple[str, str, int, bytes]]:
    """(front, kind, size, body) for every case measured, an idle one first per front-end."""
    out = [("-", "floor", 0, b"")]
    for front in PATHS:
        out.append((front, "idle", 0, make_body(front, "idle", 0)))
        for kind in kinds:
            for size in sizes:
                out.append((front, kind, size, make_body(front, kind, size)))
    gc.collect()  # the bodies' objects are gone: only their bytes stay
    return out


def report(title: str, cases: list[tuple[str, str, int, bytes]], lags: list[list[float]]) -> None:
    """Print one table: each case's worst lag in its worst, median and best run."""
    print(f"\n{title}: worst event-loop lag per request (ms)")
    print(f"{'front-end':<10} {'body':<9} {'size':>9}  {'worst':>7} {'median':>7} {'best':>7}")
    for (front, kind, _, body), seen in zip(cases, lags, strict=True):
        size = {"idle": f"{len(body)} B", "floor": f"{FLOOR_SECONDS:g} s"}.get(kind)
        size = size or f"{len(body) / MIB:.2f} MiB"
        median = statistics.median(seen)
        print(f"{front:<10} {kind:<9} {size:>9}  {max(seen):7.1f} {median:7.1f} {min(seen):7.1f}")


def check(limit: float, runs: int) -> int:
    """Near-limit bodies in process, refused and served: 1 when a front-end's best run of one
    lags past the bound.

    The bound is ``limit`` ms, or 1.5 times the floor's best run when the machine is so busy
    that a thread merely computing holds the loop longer. The best run, because a busy machine
    lengthens some runs by whole scheduler slices, while a gateway that holds its loop (a
    collection or a free over the whole body) does so in every run.
    """
    cases = cases_for([NEAR_LIMIT], ("tools", "messages", "text"))
    lags = asyncio.run(in_process(cases, runs))
    report("in process", cases, lags)
    bound = max(limit, 1.5 * min(lags[0]))
    failed = 0
    for (front, kind, _, _), seen in zip(cases, lags, strict=True):
        if kind not in ("floor", "idle") and min(seen) > bound:
            print(
                f"FAIL: {front} {kind}: a near-limit body held the loop {min(seen):.1f} ms at best"
            )
            failed = 1
    print(f"check: every front-end's best run within {bound:.0f} ms: {not failed}")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MiB bodies only, 2 runs each")
    parser.add_argument("--server", action="store_true", help="also behind uvicorn")
    parser.add_argument("--runs", type=int, default=0, help="runs per case (default 5)")
    parser.add_argument("--check", type=float, metavar="MS", help="see the module's docstring")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return 0
    if args.check:
        return check(args.check, args.runs or 3)
    runs = args.runs or (2 if args.quick else 5)
    kinds = ("tools", "messages", "text")
    cases = cases_for([MIB] if args.quick else [MIB, NEAR_LIMIT], kinds)
    report("in process", cases, asyncio.run(in_process(cases, runs)))
    if args.server:
        report("behind uvicorn", cases, behind_server(cases, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
