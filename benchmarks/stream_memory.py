"""The memory a stream adds to a process, aiwrapper against raw httpx, each in a fresh process.

``python benchmarks/stream_memory.py SIDE MEASURE MODE WIRE KIND VARIANT N SERVER`` runs one
child: SIDE is ``aiwrapper`` (``Lang.ask`` with ``on_result`` reading the answer) or ``raw``
(``variant_baselines``); MEASURE is ``rss`` or ``tracemalloc``; MODE is ``first`` (the
process's first stream, after its imports and the client's creation: what the first request
loads and builds counts) or ``later`` (after a short stream of the same shape: what the stream
itself costs). The child resets the kernel's peak-RSS mark (``/proc/self/clear_refs``), reads
the RSS, runs the N-delta stream and prints, as JSON, the peak RSS above the RSS before
(``VmHWM`` - ``VmRSS``) or the peak of what Python allocated during the stream (tracemalloc),
in KiB. ``measure_all`` runs the children from the benchmark.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from statistics import median
from typing import Any

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import subjects  # noqa: E402
import variant_baselines  # noqa: E402
import wire_variants  # noqa: E402

__all__ = ["SIDES", "measure_all"]

SIDES = [
    (side, measure, mode)
    for mode in ("first", "later")
    for side in ("aiwrapper", "raw")
    for measure in ("rss", "tracemalloc")
]


def _status(field: str) -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith(field + ":"))
    return int(line.split()[1])


def _job(side: str, wire: str, kind: str, client: httpx.AsyncClient, root: str) -> Any:
    if side == "raw":
        return lambda: variant_baselines.RAW[wire, kind](client, root)
    lang = subjects.lang_for(wire, root, client)
    seen = [0]

    def on_result(result: Any) -> None:
        calls = result.function_calls
        seen[0] += len(calls[-1].arguments) if calls else len(result.answer)

    functions = subjects.STREAM_TOOLS if kind == "tools" else None

    async def ask() -> Any:
        result = await lang.ask("go", functions=functions, auto_execute=False, on_result=on_result)
        return [c.arguments for c in result.function_calls] if kind == "tools" else result.answer

    return ask


async def _peak(measure: str, job: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    """The peak memory ``job`` added, in bytes, and what it returned."""
    if measure == "tracemalloc":
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        answer = await job()
        peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        return peak, answer
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak RSS mark starts again from the current RSS
    before = _status("VmRSS")
    answer = await job()
    return (_status("VmHWM") - before) * 1024, answer


async def _child(side: str, measure: str, mode: str, spec: list[str]) -> dict[str, Any]:
    wire, kind, variant, n, server = spec[0], spec[1], spec[2], int(spec[3]), spec[4]
    name = wire_variants.scenario_name(wire, kind, variant, n)
    async with httpx.AsyncClient(timeout=120) as client:  # the server renders for seconds
        if mode == "later":
            warm = wire_variants.scenario_name(wire, kind, variant, 40)
            await _job(side, wire, kind, client, f"{server}/{warm}")()
        peak, answer = await _peak(measure, _job(side, wire, kind, client, f"{server}/{name}"))
    want = wire_variants.expected_text(n) if kind == "text" else wire_variants.expected_calls(n)
    return {"kib": peak / 1024, "correct": answer == want}


def _run_child(args: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, timeout=300
    )
    if done.returncode != 0:
        raise RuntimeError(f"memory child {args} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def measure_all(server: str, cases: list[tuple[str, str, str, int]], runs: int) -> list[dict]:
    """For each case, the median over ``runs`` fresh processes of each side, measure and mode
    (keys like ``aiwrapper_rss_first``, in KiB)."""
    rows = []
    for wire, kind, variant, n in cases:
        # The server renders the stream before any child measures it.
        httpx.post(f"{server}/{wire_variants.scenario_name(wire, kind, variant, n)}", timeout=120)
        row: dict[str, Any] = {"wire": wire, "kind": kind, "variant": variant, "n": n}
        for side, measure, mode in SIDES:
            spec = [side, measure, mode, wire, kind, variant, str(n), server]
            results = [_run_child(spec) for _ in range(runs)]
            if not all(r["correct"] for r in results):
                raise RuntimeError(f"memory child {spec} assembled a wrong answer")
            row[f"{side}_{measure}_{mode}"] = median(r["kib"] for r in results)
        rows.append(row)
    return rows


if __name__ == "__main__":
    side, measure, mode, *spec = sys.argv[1:]
    print(json.dumps(asyncio.run(_child(side, measure, mode, spec))))
