"""The tool loop with async tools on every wire, against a hand-written raw httpx loop.

Usage: ``python benchmarks/tool_loop.py [--quick] [--profile WIRE[-stream]]``. Each loop is
a prompt, an answer asking for 4 parallel calls, the results sent back and a text answer:
two requests and four async lookups. aiwrapper runs ``Lang.ask`` (calls run concurrently, in
call order, with every check); the baseline (``loop_baselines.py``) is the loop a user writes
by hand on the same ``httpx.AsyncClient`` and the same local server (``server.py``, its own
process), awaiting each lookup inline. Both sides are timed in this process's CPU time, in
alternation, over several repeats; the table shows the median CPU per loop of each side and
the median of the per-repeat ratios (raw / aiwrapper: 1.0 costs the same, the target is 0.9).
Short runs, many of them, alternated: a machine shared with other work slows both sides alike
within a pair, and the median sets aside the pairs a burst of other work hit.
Exit status 1 means a loop came back with a wrong answer.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import loop_baselines  # noqa: E402
import subjects  # noqa: E402
from harness import ServerProcess  # noqa: E402
from suites import WrongResultError, _check  # noqa: E402
from wire_loops import ANSWER, LOOP_TOOLS, WIRES  # noqa: E402

from aiwrapper import Lang, tool  # noqa: E402

TARGET = 0.9
Job = Callable[[], Awaitable[None]]


def _tool(index: int, name: str) -> Any:
    lookup = loop_baselines.lookup_for(index)
    lookup.__doc__ = "Look up one fact about a city.\n\nArgs:\n    city: The city's name.\n"
    return tool(name=name)(lookup)


TOOLS = [_tool(i, name) for i, name in enumerate(LOOP_TOOLS)]


def _jobs(lang: Lang, client: httpx.AsyncClient, wire_name: str, root: str, stream: bool):
    raw_loop = loop_baselines.LOOPS[wire_name]
    want = (ANSWER, len(LOOP_TOOLS), "done")

    async def ours() -> None:
        result = await lang.ask(loop_baselines.PROMPT, functions=TOOLS, stream=stream)
        calls = result.function_calls
        got = (result.answer, len(calls), calls[-1].status if calls else None)
        _check(got, want, f"{wire_name} Lang.ask")

    async def raw() -> None:
        _check(await raw_loop(client, root, stream), ANSWER, f"{wire_name} raw loop")

    return ours, raw


async def _cpu(job: Job, times: int) -> float:
    start = time.process_time()
    for _ in range(times):
        await job()
    return time.process_time() - start


async def _measure_pair(ours: Job, raw: Job, loops: int, repeats: int) -> dict[str, float]:
    """Median µs of CPU per loop on each side, and the median per-repeat ratio raw/ours."""
    for _ in range(3):  # warm-up: connections, caches, first-use imports
        await ours()
        await raw()
    mine, theirs, ratios = [], [], []
    for _ in range(repeats):  # alternated, so drift in machine load hits both alike
        a = await _cpu(ours, loops)
        b = await _cpu(raw, loops)
        mine.append(a / loops * 1e6)
        theirs.append(b / loops * 1e6)
        ratios.append(b / a if a else 0.0)
    return {
        "ours": statistics.median(mine),
        "raw": statistics.median(theirs),
        "ratio": statistics.median(ratios),
    }


def _cases(only: str | None) -> list[tuple[str, bool]]:
    cases = [(w, s) for w in WIRES for s in (False, True)]
    if only is None:
        return cases
    return [(w, s) for w, s in cases if f"{w}{'-stream' if s else ''}" == only]


async def measure(server: ServerProcess, loops: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    async with httpx.AsyncClient() as client:
        for wire_name, stream in _cases(None):
            root = server.url(f"loop-{wire_name}{'-stream' if stream else ''}")
            lang = subjects.lang_for(wire_name, root, client)
            ours, raw = _jobs(lang, client, wire_name, root, stream)
            figures = await _measure_pair(ours, raw, loops, repeats)
            rows.append({"wire": wire_name, "stream": stream, **figures})
    return rows


async def profile(server: ServerProcess, case: str, loops: int) -> None:
    """cProfile aiwrapper's side of one case over ``loops`` loops; print the top entries."""
    async with httpx.AsyncClient() as client:
        for wire_name, stream in _cases(case):
            root = server.url(f"loop-{case}")
            lang = subjects.lang_for(wire_name, root, client)
            ours, _ = _jobs(lang, client, wire_name, root, stream)
            await _cpu(ours, 20)
            profiler = cProfile.Profile()
            profiler.enable()
            await _cpu(ours, loops)
            profiler.disable()
            stats = pstats.Stats(profiler).sort_stats("tottime")
            stats.print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)


def format_rows(rows: list[dict[str, Any]]) -> str:
    head = f"{'wire':26} {'aiwrapper us/loop':>18} {'raw us/loop':>12} {'raw/ours':>9}  target"
    lines = [head, "-" * len(head)]
    for row in rows:
        name = f"{row['wire']}{', streamed' if row['stream'] else ''}"
        ok = "ok" if row["ratio"] >= TARGET else "MISS"
        lines.append(
            f"{name:26} {row['ours']:18.0f} {row['raw']:12.0f} {row['ratio']:8.2f}x"
            f"  >= {TARGET}x {ok}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the async tool loop against raw httpx")
    parser.add_argument("--quick", action="store_true", help="few loops, few repeats")
    parser.add_argument("--loops", type=int, default=0, help="loops per timed run")
    parser.add_argument("--repeats", type=int, default=0, help="timed runs per side")
    parser.add_argument("--profile", metavar="CASE", help="profile one case, e.g. openai-stream")
    args = parser.parse_args(argv)
    loops = args.loops or (20 if args.quick else 40)
    repeats = args.repeats or (2 if args.quick else 21)
    with ServerProcess(deltas=10, calls=1, fragments=3) as server:
        if args.profile:
            asyncio.run(profile(server, args.profile, loops))
            return 0
        try:
            rows = asyncio.run(measure(server, loops, repeats))
        except WrongResultError as exc:
            print(f"benchmark failed: {exc}", file=sys.stderr)
            return 1
    print(format_rows(rows))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n(CPU time of this process per loop of 2 requests and 4 async calls; median of "
        f"{repeats} alternated runs of {loops} loops; load average {load} on {os.cpu_count()} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
