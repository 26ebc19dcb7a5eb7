"""What OpenTelemetry costs a tool loop: the loop benchmark with ``telemetry`` on and off.

Usage: ``python benchmarks/telemetry.py [--rounds N] [--loops N]``. The tool-loop row's run
(prompt -> 4 parallel calls -> results -> answer, over HTTP to the local benchmark server) is
timed in CPU time, ``telemetry=True`` and ``telemetry=False`` in alternating pairs (so a
shared machine's changing load hits both alike), and compared by their medians, in two setups:

- ``api``: the API installed and no SDK configured (the global providers are no-ops): the
  case every user of the extra who exports nothing pays, and which must stay within 3 %;
- ``sdk``: the SDK with a span processor exporting to memory and a metric reader, the cost
  of actually recording (7 spans and 6 histogram records per run).

Each round prints the ratio of medians; their range over the rounds is shown, since a single
round on a shared machine can mislead.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import subjects  # noqa: E402
import wire  # noqa: E402
from harness import ServerProcess  # noqa: E402

from aiwrapper._wire import _telemetry  # noqa: E402


def _use_sdk() -> object:
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
    _telemetry.use_providers(tracer_provider, meter_provider)
    return exporter


async def _rounds(server: ServerProcess, setup: str, args: argparse.Namespace) -> list[float]:
    """Per round: the median CPU time of a run with telemetry on over one with it off."""
    exporter = _use_sdk() if setup == "sdk" else None
    root = server.url("loop")
    want = wire.openai_loop_answer().expected
    ratios, extra = [], []
    async with httpx.AsyncClient() as client:
        lang = subjects.lang_for("openai", root, client)

        async def timed(telemetry: bool) -> float:
            start = time.process_time()  # CPU of every thread here, as harness.py times
            result = await lang.ask("go", functions=subjects.LOOP_ASYNC_TOOLS, telemetry=telemetry)
            seconds = time.process_time() - start
            assert result.answer == want
            return seconds

        for _ in range(args.loops // 10):  # warm-up, both sides
            await timed(True), await timed(False)
        for _ in range(args.rounds):
            on, off = [], []
            for i in range(args.loops):  # in pairs, the order swapped at each pair
                first = i % 2 == 0
                a, b = await timed(first), await timed(not first)
                on.append(a if first else b)
                off.append(b if first else a)
            ratios.append(statistics.median(on) / statistics.median(off))
            extra.append((statistics.median(on) - statistics.median(off)) * 1e6)
            if exporter is not None:
                exporter.clear()  # type: ignore[attr-defined]
    _telemetry._loaded.clear()
    low, high = min(extra), max(extra)
    print(f"  {setup}: added per run {statistics.median(extra):.0f} us ({low:.0f} .. {high:.0f})")
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--loops", type=int, default=100)
    parser.add_argument("--setups", nargs="+", default=["api", "sdk"], choices=["api", "sdk"])
    args = parser.parse_args()
    with ServerProcess(deltas=10, calls=8, fragments=10) as server:
        for setup in args.setups:
            ratios = asyncio.run(_rounds(server, setup, args))
            shown = ", ".join(f"{r:.3f}" for r in ratios)
            print(f"{setup}: on/off CPU time {statistics.median(ratios):.3f} median ({shown})")


if __name__ == "__main__":
    main()
