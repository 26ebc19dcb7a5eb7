"""Profile one aiwrapper stream benchmark with cProfile and print where the time goes.

Usage: ``python benchmarks/profile_stream.py [openai|openai-tools|anthropic|anthropic-tools|
gemini|ollama|v-...] [--send] [--watch on_result|on_event] [--top N]``. Starts the benchmark
server, warms up, then profiles a few streamed ``Lang.ask`` calls (``--send``:
``HttpModel.send`` with a no-op sink; ``--watch``: with the watched benchmark's callback set)
and prints the top functions by own time and by cumulative time. A scenario named by
``wire_variants.scenario_name`` (``v-anthropic-text-shuffled-20000``) profiles that variant.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import sys
from pathlib import Path

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import subjects  # noqa: E402
import watched  # noqa: E402
import wire_variants  # noqa: E402
from harness import ServerProcess  # noqa: E402

_SCENARIOS = {
    "openai": ("openai", "openai-text"),
    "openai-tools": ("openai", "openai-tools"),
    "anthropic": ("anthropic", "anthropic"),
    "anthropic-tools": ("anthropic", "anthropic-tools"),
    "gemini": ("gemini", "gemini"),
    "ollama": ("ollama", "ollama"),
}


async def _profile(
    root: str, wire_name: str, *, send: bool, watch: str | None, runs: int
) -> cProfile.Profile:
    tools = root.endswith("tools") or "-tools-" in root
    functions = subjects.STREAM_TOOLS if tools else None
    watching = {watch: getattr(watched.Watcher(), watch)} if watch else {}
    async with httpx.AsyncClient() as client:
        lang = subjects.lang_for(wire_name, root, client)

        async def once() -> None:
            if send:
                await subjects.model_send(lang, functions)
            else:
                await lang.ask("go", functions=functions, auto_execute=False, **watching)

        await once()
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(runs):
            await once()
        profiler.disable()
    return profiler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="openai")
    parser.add_argument("--send", action="store_true", help="HttpModel.send, not Lang.ask")
    parser.add_argument("--watch", choices=("on_result", "on_event"), help="callback to set")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.scenario.startswith("v-"):
        wire_name = next(w for w in wire_variants.WIRES if args.scenario.startswith(f"v-{w}-"))
        scenario = args.scenario
    else:
        wire_name, scenario = _SCENARIOS[args.scenario]
    with ServerProcess(deltas=20_000, calls=8, fragments=250, variants=True) as server:
        root = server.url(scenario)
        run = _profile(root, wire_name, send=args.send, watch=args.watch, runs=args.runs)
        profiler = asyncio.run(run)
    stats = pstats.Stats(profiler).strip_dirs()
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
