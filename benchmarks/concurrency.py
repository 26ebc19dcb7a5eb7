"""Many concurrent long streams through one ``Lang``: do they all succeed?

Usage: ``python benchmarks/concurrency.py [--runs 500] [--seconds 2] [--timeout 3]``. A server
in its own process (127.0.0.1 only) answers every request with an OpenAI-shaped text stream
that takes ``--seconds`` (five events spread over it). ``--runs`` concurrent ``ask`` calls go
through one ``Lang.openai(timeout=...)`` with its own connection pool; the same is done through
a borrowed client set up as the pool was before (64 connections, the pool wait sharing the
timeout) to show what changed. Not part of the unit suite: it takes a few seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402

from aiwrapper import Lang  # noqa: E402

EVENTS = 5


def _event(text: str, finish: str | None = None) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
    data = b"data: " + json.dumps(chunk).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data)


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pause: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                (int(line.split(b":")[1]) for line in head.split(b"\r\n")
                 if line.lower().startswith(b"content-length:")),
                0,
            )  # fmt: skip
            await reader.readexactly(length)
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"transfer-encoding: chunked\r\n\r\n"
            )
            for i in range(EVENTS):
                await asyncio.sleep(pause)
                writer.write(_event(f"{i} ", "stop" if i == EVENTS - 1 else None))
            writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (14, b"data: [DONE]\n\n"))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def _serve(seconds: float) -> None:
    pause = seconds / EVENTS
    server = await asyncio.start_server(
        lambda r, w: _handle(r, w, pause), "127.0.0.1", 0, backlog=2048
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


async def _burst(lang: Lang, runs: int) -> tuple[int, float, list[str]]:
    async def one() -> str | None:
        try:
            return (await lang.ask("go")).answer
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    start = time.perf_counter()
    answers = await asyncio.gather(*(one() for _ in range(runs)))
    seconds = time.perf_counter() - start
    failures = [a for a in answers if a != "0 1 2 3 4 "]
    return runs - len(failures), seconds, failures


async def _measure(port: int, runs: int, timeout: float) -> None:
    base_url = f"http://127.0.0.1:{port}/v1"
    async with Lang.openai("m", api_key="k", base_url=base_url, timeout=timeout) as lang:
        ok, seconds, failures = await _burst(lang, runs)
    print(f"aiwrapper pool:                     {ok}/{runs} succeeded in {seconds:.1f} s")
    for failure in sorted(set(failures))[:3]:
        print(f"  failure: {failure[:120]}")
    old = httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 10)),
        limits=httpx.Limits(max_connections=64, max_keepalive_connections=16),
    )
    async with old, Lang.openai("m", api_key="k", base_url=base_url, http_client=old) as lang:
        ok, seconds, failures = await _burst(lang, runs)
    print(
        f"pool as before (64, pool wait within timeout): {ok}/{runs} succeeded in {seconds:.1f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(_serve(args.seconds))
        return 0
    command = [sys.executable, __file__, "--serve", f"--seconds={args.seconds}"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            print(f"{args.runs} asks at once, {args.seconds:g} s streams, timeout={args.timeout:g}")
            asyncio.run(_measure(port, args.runs, args.timeout))
        finally:
            server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
