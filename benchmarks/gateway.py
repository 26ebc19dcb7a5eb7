"""The gateway's cost: added latency, CPU per request and per streamed chunk, 200 streams.

Usage: ``python benchmarks/gateway.py [--quick]``. Three processes, all on 127.0.0.1: the
pre-rendered backend (``server.py``), the gateway as ``python -m aiwrapper serve`` runs it
(this script with ``--child``: ``uvicorn_config``'s server, an API key required, the access
log on, written to /dev/null) and the measuring client (this script). Each figure is set
against calling the backend directly in the same run:

- added latency: one small non-streamed request, sequential, median, through the gateway vs
  straight to the backend (raw httpx both ways);
- CPU per small request: the gateway process's CPU time (from ``/proc``) per small
  non-streamed request it proxies, against the client CPU of ``Lang.chat`` making the same
  request straight to the backend;
- CPU per streamed chunk: the gateway process's CPU time per text delta it relays (to a Chat
  Completions client, then to a Responses API client), vs the CPU ``Lang.stream`` spends per
  delta consuming the same stream in process; with one stream at a time, then 50 at once;
- 200 concurrent streams through one gateway process: wall time, and every stream complete
  (``[DONE]`` seen) and correct (the text is the backend's, in order).

Exit status 1 means a stream came back wrong or incomplete.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import wire  # noqa: E402
from harness import ServerProcess  # noqa: E402

from aiwrapper import Lang, TextDelta  # noqa: E402

ASK = {"messages": [{"role": "user", "content": "Hi"}]}
KEY = "bench-key"
STREAMS = 50  # concurrent streams of the second CPU-per-chunk measurement
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}


def child(cpu_port: int, many_port: int) -> None:
    """Serve the gateway on an ephemeral port (printed first) until terminated, set up as
    ``python -m aiwrapper serve --api-key ...`` sets it up (access log on stderr)."""
    import uvicorn

    from aiwrapper.gateway import Gateway
    from aiwrapper.gateway._serve import _log_to_stderr
    from aiwrapper.gateway._server import ServerLimits, settle, uvicorn_config

    def backend(port: int, scenario: str, **options: object) -> Lang:
        base = f"http://127.0.0.1:{port}/{scenario}/v1"
        return Lang.openai(base_url=base, api_key="bench", options=options or None)

    routes = {
        "tiny": backend(cpu_port, "tiny", stream=False),
        "text": backend(cpu_port, "openai-text"),
        "many": backend(many_port, "openai-text"),
    }
    # Made as uvicorn makes its own: a socket of protocol 0 would not get TCP_NODELAY from
    # asyncio, and every response would wait out the client's delayed ACK (40 ms).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    gateway = Gateway(routes, api_keys=[KEY])
    config = uvicorn_config(gateway, host="127.0.0.1", port=0, limits=ServerLimits())
    config.log_level = "warning"
    _log_to_stderr()  # the access log, one line per request (stderr is /dev/null here)
    settle(config)  # as serve does: what the process holds once set up is out of gc's sight
    uvicorn.Server(config).run(sockets=[listener])


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def latency(client: httpx.AsyncClient, gateway: str, backend: str, n: int) -> list[float]:
    """Median ms of a small request: straight to the backend, then through the gateway."""
    direct: list[float] = []
    through: list[float] = []
    for _ in range(n):  # alternated, so drift in machine load hits both alike
        for url, body, times in (
            (backend + "/tiny/v1/chat/completions", {"model": "m", **ASK}, direct),
            (gateway + "/v1/chat/completions", {"model": "tiny", **ASK}, through),
        ):
            began = time.perf_counter()
            reply = await client.post(url, json=body)
            times.append(time.perf_counter() - began)
            assert reply.json()["choices"][0]["message"]["content"] == "pong", reply.text
    return [statistics.median(direct) * 1000, statistics.median(through) * 1000]


async def request_cpu(
    client: httpx.AsyncClient, gateway: str, backend: str, pid: int, n: int
) -> list[float]:
    """Milliseconds of CPU per small non-streamed request: ``Lang.chat`` straight to the
    backend (this process), then the gateway process proxying it."""
    lang = Lang.openai(base_url=backend + "/tiny/v1", api_key="bench", options={"stream": False})
    await lang.ask("Hi")
    began = time.process_time()
    for _ in range(n):
        assert (await lang.ask("Hi")).answer == "pong"
    direct = (time.process_time() - began) / n * 1000
    await lang.aclose()
    body = {"model": "tiny", **ASK}
    before = cpu_seconds(pid)
    for _ in range(n):
        reply = await client.post(gateway + PATHS["chat"], json=body)
        assert reply.json()["choices"][0]["message"]["content"] == "pong", reply.text
    return [direct, (cpu_seconds(pid) - before) / n * 1000]


async def relay_cpu(
    client: httpx.AsyncClient,
    gateway: str,
    backend: str,
    pid: int,
    expected: str,
    rounds: int,
    streams: int = 1,
) -> list[float]:
    """Microseconds of CPU per delta, ``streams`` streams at a time: ``Lang.stream`` in
    process, then the gateway process relaying to a Chat Completions client and to a
    Responses client."""
    lang = Lang.openai(base_url=backend + "/openai-text/v1", api_key="bench")

    async def consume() -> str:
        text: list[str] = []
        async with lang.stream("Hi") as run:
            text += [e.text async for e in run if isinstance(e, TextDelta)]
        return "".join(text)

    began = time.process_time()
    for _ in range(rounds):
        texts = await asyncio.gather(*(consume() for _ in range(streams)))
        assert all(text == expected for text in texts)
    direct = time.process_time() - began
    await lang.aclose()
    deltas = rounds * streams * len(expected.split(" ")[1:])
    figures = [direct / deltas * 1e6]
    for api in PATHS:
        before = cpu_seconds(pid)
        for _ in range(rounds):
            jobs = (stream_text(client, gateway, "text", api) for _ in range(streams))
            assert all(text == expected for text in await asyncio.gather(*jobs))
        figures.append((cpu_seconds(pid) - before) / deltas * 1e6)
    return figures


async def stream_text(
    client: httpx.AsyncClient, gateway: str, route: str, api: str = "chat"
) -> str | None:
    """The streamed answer's text, or None when the stream did not end as the wire ends it
    (``[DONE]`` on Chat Completions, ``response.completed`` on the Responses API)."""
    ask = ASK if api == "chat" else {"input": "Hi"}
    text: list[str] = []
    body = {"model": route, "stream": True, **ask}
    async with client.stream("POST", gateway + PATHS[api], json=body) as reply:
        async for line in reply.aiter_lines():
            if line == "data: [DONE]":
                return "".join(text)
            if not line.startswith("data: "):
                continue
            data = json.loads(line[6:])
            if api == "chat":
                text += [c["delta"].get("content") or "" for c in data["choices"]]
            elif data["type"] == "response.output_text.delta":
                text.append(data["delta"])
            elif data["type"] == "response.completed":
                return "".join(text)
    return None


async def concurrent(client: httpx.AsyncClient, gateway: str, expected: str, n: int) -> list[float]:
    """Wall seconds for ``n`` concurrent streams, and how many came back complete and right."""
    began = time.perf_counter()
    texts = await asyncio.gather(*(stream_text(client, gateway, "many") for _ in range(n)))
    seconds = time.perf_counter() - began
    return [seconds, sum(text == expected for text in texts)]


async def measure(gateway: str, backend: str, pid: int, quick: bool) -> int:
    deltas, streams = (1_000, 200) if quick else (10_000, 200)
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams)
    key = {"authorization": f"Bearer {KEY}"}
    async with httpx.AsyncClient(limits=limits, timeout=120, headers=key) as client:
        direct_ms, through_ms = await latency(client, gateway, backend, 30 if quick else 300)
        small = await request_cpu(client, gateway, backend, pid, 30 if quick else 300)
        text = wire.openai_text(deltas).expected
        one = await relay_cpu(client, gateway, backend, pid, text, 2 if quick else 5)
        many = await relay_cpu(client, gateway, backend, pid, text, 1, STREAMS)
        seconds, right = await concurrent(client, gateway, wire.openai_text(200).expected, streams)
    rows = [
        ("latency of a small request (ms, median)", through_ms, direct_ms),
        ("added latency per request (ms)", through_ms - direct_ms, None),
        ("CPU per small request (ms)", small[1], small[0]),
        ("CPU per streamed chunk (us)", one[1], one[0]),
        ("CPU per streamed chunk, Responses client (us)", one[2], one[0]),
        (f"CPU per streamed chunk, {STREAMS} streams (us)", many[1], many[0]),
        (f"CPU per streamed chunk, {STREAMS} streams, Responses (us)", many[2], many[0]),
    ]
    print(f"{'metric':52} {'gateway':>9} {'direct':>9} {'ratio':>7}")
    for metric, ours, theirs in rows:
        ratio = f"{ours / theirs:6.2f}x" if theirs else ""
        direct = f"{theirs:9.2f}" if theirs is not None else " " * 9
        print(f"{metric:52} {ours:9.2f} {direct} {ratio:>7}")
    print(f"{streams} concurrent streams of 200 chunks: {seconds:.2f} s, ", end="")
    print(f"{right} complete and right")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"(load average {load} on {os.cpu_count()} CPUs; served on {served_on()})")
    return 0 if right == streams else 1


def served_on() -> str:
    """The HTTP parser and event loop the gateway runs on (as ``serve`` prints them)."""
    from aiwrapper.gateway._server import ServerLimits, stack, uvicorn_config

    return stack(uvicorn_config(None, host="127.0.0.1", port=0, limits=ServerLimits()))


def main() -> int:
    parser = argparse.ArgumentParser(description="the gateway's cost against direct calls")
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return 0
    deltas = 1_000 if args.quick else 10_000
    with (
        ServerProcess(deltas=deltas, calls=1, fragments=1) as cpu_backend,
        ServerProcess(deltas=200, calls=1, fragments=1) as many_backend,
    ):
        ports = [str(cpu_backend.port), str(many_backend.port)]
        process = subprocess.Popen(
            [sys.executable, __file__, "--child", *ports],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # the access log: written, then dropped
            text=True,
        )
        try:
            assert process.stdout is not None
            gateway = f"http://127.0.0.1:{int(process.stdout.readline())}"
            _wait_until_up(gateway)
            backend = f"http://127.0.0.1:{cpu_backend.port}"
            return asyncio.run(measure(gateway, backend, process.pid, args.quick))
        finally:
            process.terminate()
            process.wait(timeout=10)


def _wait_until_up(gateway: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(gateway + "/healthz")
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
