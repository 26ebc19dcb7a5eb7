"""Where the gateway process's CPU per small proxied request goes (issue #32).

Usage: ``python benchmarks/gateway_split.py [--quick]``. ``gateway.py`` gives one figure: the
gateway process's CPU per small non-streamed request. This splits it by serving the same
request from four server processes set up alike (``uvicorn_config``'s server, ``settle``d,
as ``serve`` runs it), measured in alternation against one backend (``server.py``):

- ``floor``: an ASGI app that reads the body and answers a fixed JSON, no upstream call: what
  uvicorn and its HTTP parser cost per request;
- ``lang``: an ASGI app that answers with ``Lang.chat`` of the route (the gateway's upstream
  turn, without the gateway);
- ``gateway``: ``Gateway`` with the route, an API key, no access log;
- ``gateway+log``: the same with the access log on (written to /dev/null), as ``gateway.py``.

Two references: ``Lang.chat`` making the same request in this process (``gateway.py``'s
"direct"), and ``Lang.chat`` called in a loop inside the ``lang`` server process (the same
call, with nothing served in between). Figures are CPU milliseconds per request, median and
range over the rounds; differences of medians are printed as the share of each layer.
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
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
from gateway import ASK, KEY, _wait_until_up, cpu_seconds, served_on  # noqa: E402
from harness import ServerProcess  # noqa: E402

from aiwrapper import Lang  # noqa: E402
from aiwrapper.gateway._asgi import Receive, Scope, Send  # noqa: E402

MODES = ("floor", "lang", "gateway", "gateway+log")
FIXED = json.dumps({"choices": [{"message": {"role": "assistant", "content": "pong"}}]})


def child(mode: str, port: int) -> None:
    """Serve ``mode``'s app on an ephemeral port (printed first) until terminated."""
    import uvicorn

    from aiwrapper.gateway import Gateway
    from aiwrapper.gateway._serve import _log_to_stderr
    from aiwrapper.gateway._server import ServerLimits, settle, uvicorn_config

    lang = backend_lang(port)
    app: Any = Bare(mode, lang)
    if mode.startswith("gateway"):
        app = Gateway({"tiny": lang}, api_keys=[KEY])
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    config = uvicorn_config(app, host="127.0.0.1", port=0, limits=ServerLimits())
    config.log_level = "warning"
    if mode == "gateway+log":
        _log_to_stderr()
    settle(config)
    uvicorn.Server(config).run(sockets=[listener])


def backend_lang(port: int) -> Lang:
    base = f"http://127.0.0.1:{port}/tiny/v1"
    return Lang.openai(base_url=base, api_key="bench", options={"stream": False})


class Bare:
    """A minimal ASGI app: a fixed answer (``floor``) or ``Lang.chat``'s (``lang``); ``GET
    /hot?N`` runs N ``Lang.chat`` calls in a loop and answers their CPU ms per call."""

    def __init__(self, mode: str, lang: Lang) -> None:
        self.mode, self.lang = mode, lang

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        if scope["path"] == "/hot":
            data = str(await self.hot(int(scope["query_string"] or 100)))
        elif self.mode == "lang" and scope["method"] == "POST":
            answer = (await self.lang.chat([{"role": "user", "content": "Hi"}])).answer
            data = FIXED.replace("pong", answer)
        else:
            data = FIXED
        body = data.encode()
        head = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        await send({"type": "http.response.start", "status": 200, "headers": head})
        await send({"type": "http.response.body", "body": body})

    async def hot(self, n: int) -> float:
        began = time.process_time()
        for _ in range(n):
            await self.lang.chat([{"role": "user", "content": "Hi"}])
        return (time.process_time() - began) / n * 1000


async def measure(servers: dict[str, tuple[int, str]], backend: int, rounds: int, n: int) -> None:
    figures: dict[str, list[float]] = {name: [] for name in ["direct", "hot", *MODES]}
    lang = backend_lang(backend)
    body = {"model": "tiny", **ASK}
    async with httpx.AsyncClient(timeout=60, headers={"authorization": f"Bearer {KEY}"}) as client:
        for round_ in range(rounds + 1):  # the first round warms every process up, unrecorded
            began = time.process_time()
            for _ in range(n):
                assert (await lang.ask("Hi")).answer == "pong"
            direct = (time.process_time() - began) / n * 1000
            for name, (pid, url) in servers.items():
                before = cpu_seconds(pid)
                for _ in range(n):
                    reply = await client.post(url + "/v1/chat/completions", json=body)
                    assert reply.json()["choices"][0]["message"]["content"] == "pong", reply.text
                if round_:
                    figures[name].append((cpu_seconds(pid) - before) / n * 1000)
            hot = float((await client.get(servers["lang"][1] + f"/hot?{n}")).text)
            if round_:
                figures["direct"].append(direct)
                figures["hot"].append(hot)
    await lang.aclose()
    report(figures)


def report(figures: dict[str, list[float]]) -> None:
    labels = {
        "direct": "Lang.chat in process (gateway.py's direct)",
        "hot": "Lang.chat in a loop inside the server process",
        "floor": "server floor: uvicorn + a fixed answer",
        "lang": "bare ASGI app answering with Lang.chat",
        "gateway": "Gateway, no access log",
        "gateway+log": "Gateway, access log on (as gateway.py)",
    }
    med = {name: statistics.median(values) for name, values in figures.items()}
    print(f"{'CPU ms per small request':48} {'median':>7} {'range':>12}")
    for name, label in labels.items():
        low, high = min(figures[name]), max(figures[name])
        print(f"{label:48} {med[name]:7.2f} {low:5.2f}-{high:5.2f}")
    print("shares (differences of medians):")
    shares = [
        (f"uvicorn on {served_on()} (floor)", med["floor"]),
        ("the upstream turn, served (lang - floor)", med["lang"] - med["floor"]),
        ("  (the same call in a loop in that process)", med["hot"]),
        ("the gateway's own code (gateway - lang)", med["gateway"] - med["lang"]),
        ("the access log (gateway+log - gateway)", med["gateway+log"] - med["gateway"]),
    ]
    for label, value in shares:
        print(f"  {label:46} {value:7.2f}")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"(load average {load} on {os.cpu_count()} CPUs)")


def main() -> int:
    parser = argparse.ArgumentParser(description="the gateway's CPU per small request, by layer")
    parser.add_argument("--quick", action="store_true", help="few rounds of few requests")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return 0
    rounds, n = (2, 30) if args.quick else (7, 500)
    with ServerProcess(deltas=100, calls=1, fragments=1) as backend:
        processes = [
            subprocess.Popen(
                [sys.executable, __file__, "--child", mode, str(backend.port)],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # the access log: written, then dropped
                text=True,
            )
            for mode in MODES
        ]
        try:
            servers = {}
            for mode, process in zip(MODES, processes, strict=True):
                assert process.stdout is not None
                url = f"http://127.0.0.1:{int(process.stdout.readline())}"
                _wait_until_up(url)
                servers[mode] = (process.pid, url)
            asyncio.run(measure(servers, backend.port, rounds, n))
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
