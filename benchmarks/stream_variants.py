"""Streams we did not shape, decoded with ``on_result`` set, against raw httpx + ``json.loads``.

Usage: ``python benchmarks/stream_variants.py [--quick] [--json] [--repeats N]
[--wires openai,...] [--kinds text,tools] [--variants recorded,...] [--sizes 5000,...]
[--no-memory]``.

For each wire (Chat Completions, Anthropic, Gemini, Ollama, Responses), the recorded fixture
streams grown to N text deltas, and N tool-argument fragments (in four calls) where the wire
streams them, written in each ``wire_variants.VARIANTS`` (as recorded; padding fields added and
removed; keys shuffled; white space after ``data:`` and between tokens; keep-alives and
comments interleaved; CRLF; all at once). Each cell times ``Lang.ask`` with an ``on_result``
callback that reads the answer (or the newest call's arguments) against the raw reader of
``variant_baselines`` on the same bytes from the same local server, the two alternating, in
this process's CPU time; it prints raw time / aiwrapper time (>= 1.0x: aiwrapper is as fast),
the median of the pairs. Both sides' answers are checked; a wrong one ends the run with status
1. Then the memory a 5,000-delta stream adds, each side in fresh processes
(``stream_memory.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import stream_memory  # noqa: E402
import subjects  # noqa: E402
import variant_baselines  # noqa: E402
import wire_variants  # noqa: E402
from harness import HERE, ServerProcess  # noqa: E402

from aiwrapper import LangResult  # noqa: E402

Job = Callable[[], Awaitable[Any]]


class WrongAnswerError(RuntimeError):
    """One side assembled something other than the stream's answer."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What one run measures."""

    sizes: tuple[int, ...]
    repeats: int
    wires: tuple[str, ...]
    kinds: tuple[str, ...]
    variants: tuple[str, ...]
    memory_size: int
    memory_runs: int
    memory_variants: tuple[str, ...]


class Watcher:
    """The ``on_result`` callback: reads what a live display reads, after every change."""

    def __init__(self) -> None:
        self.seen = 0

    def on_result(self, result: LangResult) -> None:
        calls = result.function_calls
        self.seen += len(calls[-1].arguments) if calls else len(result.answer)


def _checked(job: Job, want: Any, what: str) -> Job:
    async def run() -> None:
        got = await job()
        if got != want:
            raise WrongAnswerError(f"{what}: assembled a wrong answer ({str(got)[:100]!r})")

    return run


def _jobs(client: httpx.AsyncClient, root: str, wire: str, kind: str, n: int) -> tuple[Job, Job]:
    """(aiwrapper, raw) for one stream, each checking its answer."""
    lang = subjects.lang_for(wire, root, client)
    functions = subjects.STREAM_TOOLS if kind == "tools" else None

    async def ours() -> Any:
        watcher = Watcher()
        result = await lang.ask(
            "go", functions=functions, auto_execute=False, on_result=watcher.on_result
        )
        return [c.arguments for c in result.function_calls] if kind == "tools" else result.answer

    async def raw() -> Any:
        return await variant_baselines.RAW[wire, kind](client, root)

    want = wire_variants.expected_text(n) if kind == "text" else wire_variants.expected_calls(n)
    label = f"{wire} {kind} {n}"
    return _checked(ours, want, f"{label} aiwrapper"), _checked(raw, want, f"{label} raw")


async def _cpu(job: Job, times: int) -> float:
    start = time.process_time()
    for _ in range(times):
        await job()
    return time.process_time() - start


async def ratio(ours: Job, raw: Job, *, repeats: int, times: int) -> float:
    """The median over ``repeats`` alternating pairs of raw CPU time / aiwrapper CPU time."""
    await ours()  # warm-up: the server renders the stream on the first request
    await raw()
    ratios = []
    for i in range(repeats):
        if i % 2:  # alternate which side goes first: a drift in load hits both alike
            raw_time = await _cpu(raw, times)
            our_time = await _cpu(ours, times)
        else:
            our_time = await _cpu(ours, times)
            raw_time = await _cpu(raw, times)
        ratios.append(raw_time / our_time)
    return median(ratios)


async def measure_ratios(server: ServerProcess, plan: Plan) -> dict[tuple, float]:
    """The ratio of every (wire, kind, variant, size) cell, each row printed when measured."""
    cells: dict[tuple, float] = {}
    print(_header(plan), flush=True)
    async with httpx.AsyncClient(timeout=120) as client:  # the server renders for seconds
        for wire in plan.wires:
            for kind in (k for k in wire_variants.KINDS[wire] if k in plan.kinds):
                for variant in plan.variants:
                    for n in plan.sizes:
                        name = wire_variants.scenario_name(wire, kind, variant, n)
                        ours, raw = _jobs(client, server.url(name), wire, kind, n)
                        times = max(1, 10_000 // n) if n >= 1_000 else 1
                        cells[wire, kind, variant, n] = await ratio(
                            ours, raw, repeats=plan.repeats, times=times
                        )
                    print(_row(cells, plan, wire, kind, variant), flush=True)
    if cells:
        print(_lowest(cells, plan))
    return cells


def _header(plan: Plan) -> str:
    sizes = "".join(f"{n:>10,}" for n in plan.sizes)
    return f"{'wire':<17}{'kind':<7}{'variant':<11}{sizes}"


def _row(cells: dict[tuple, float], plan: Plan, wire: str, kind: str, variant: str) -> str:
    values = "".join(f"{cells[wire, kind, variant, n]:>9.2f}x" for n in plan.sizes)
    return f"{wire:<17}{kind:<7}{variant:<11}{values}"


def _lowest(cells: dict[tuple, float], plan: Plan) -> str:
    lowest = "".join(f"{min(v for k, v in cells.items() if k[3] == n):>9.2f}x" for n in plan.sizes)
    return f"{'lowest':<35}{lowest}"


def memory_table(rows: list[dict]) -> str:
    """Peak RSS and tracemalloc peak added by one stream, per side and mode, and the RSS ratio."""
    head = f"{'wire':<17}{'kind':<6}{'variant':<10}{'deltas':>7}  {'stream':<7}"
    head += f"{'RSS ours':>10}{'RSS raw':>9}{'ratio':>7}{'heap ours':>11}{'heap raw':>10}"
    lines = [head]
    for r in rows:
        for mode in ("first", "later"):
            ours, raw = r[f"aiwrapper_rss_{mode}"], r[f"raw_rss_{mode}"]
            heap_ours, heap_raw = r[f"aiwrapper_tracemalloc_{mode}"], r[f"raw_tracemalloc_{mode}"]
            lines.append(
                f"{r['wire']:<17}{r['kind']:<6}{r['variant']:<10}{r['n']:>7,}  {mode:<7}"
                f"{ours / 1024:>7.1f} MB{raw / 1024:>6.1f} MB{ours / max(raw, 1):>6.2f}x"
                f"{heap_ours / 1024:>8.1f} MB{heap_raw / 1024:>7.1f} MB"
            )
    return "\n".join(lines)


def _machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"Python {platform.python_version()} on {platform.platform()}, "
        f"{os.cpu_count()} CPUs, load average {load}"
    )


def _plan(args: argparse.Namespace) -> Plan:
    wires = tuple(args.wires.split(",")) if args.wires else wire_variants.WIRES
    kinds = tuple(args.kinds.split(",")) if args.kinds else ("text", "tools")
    variants = tuple(args.variants.split(",")) if args.variants else wire_variants.VARIANTS
    sizes = (50, 500) if args.quick else (5_000, 50_000)
    if args.sizes:
        sizes = tuple(int(n) for n in args.sizes.split(","))
    if args.quick:
        return Plan(sizes, args.repeats or 1, wires, kinds, variants, 500, 1, ("recorded",))
    return Plan(sizes, args.repeats or 5, wires, kinds, variants, 5_000, 3, ("recorded",))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--json", action="store_true", help="also write stream_variants.json")
    parser.add_argument("--repeats", type=int, help="alternating pairs per cell")
    parser.add_argument("--wires", help="comma-separated wires (default: all)")
    parser.add_argument("--kinds", help="comma-separated kinds: text, tools (default: both)")
    parser.add_argument("--variants", help="comma-separated variants (default: all)")
    parser.add_argument("--sizes", help="comma-separated delta counts (default: 5000,50000)")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory table")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    plan = _plan(args)
    start = time.perf_counter()
    print(f"machine: {_machine()}")
    print("\nraw httpx + json.loads CPU time / aiwrapper's with on_result (>= 1.00x: as fast)")
    memory: list[dict] = []
    with ServerProcess(deltas=10, calls=1, fragments=3, variants=True) as server:
        try:
            cells = asyncio.run(measure_ratios(server, plan))
            if not args.no_memory:
                cases = [
                    (wire, "text", variant, plan.memory_size)
                    for wire in (plan.wires[:1] if args.quick else plan.wires)
                    for variant in plan.memory_variants
                ]
                memory = stream_memory.measure_all(server.url("")[:-1], cases, plan.memory_runs)
        except (WrongAnswerError, RuntimeError) as exc:
            print(f"benchmark failed: {exc}", file=sys.stderr)
            return 1
    if memory:
        print(
            "\npeak memory added by one stream, each side in fresh processes (median): the "
            "process's first stream, and a later one"
        )
        print(memory_table(memory))
    print(f"\n({time.perf_counter() - start:.0f} s; {_machine()})")
    if args.json:
        data = {
            "machine": _machine(),
            "cells": [{"cell": list(k), "ratio": round(v, 3)} for k, v in cells.items()],
            "memory": memory,
        }
        (HERE / "stream_variants.json").write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
