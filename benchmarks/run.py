"""Run every aiwrapper benchmark against its raw-httpx baseline and print one table.

Usage: ``python benchmarks/run.py [--quick] [--json]``. A local server (``server.py``, its
own process, 127.0.0.1 only) answers with pre-rendered bodies; every aiwrapper figure is
measured in the same run as its baseline, as issue 3's "Done when" asks: stream decoding in
four wire formats, the tool loop, small requests, connection reuse, import cost and the first
request. ``--json`` also writes ``benchmarks/results.json``. Exit status 1 means a benchmark
assembled a wrong answer (a missed target only shows as ``MISS``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path[1:1] = [str(Path(__file__).resolve().parents[1])]  # the checkout's aiwrapper

import httpx  # noqa: E402
import probes  # noqa: E402
import report  # noqa: E402
import suites  # noqa: E402
from harness import HERE, Row, ServerProcess  # noqa: E402

FULL = suites.Config(
    deltas=20_000,
    calls=8,
    fragments=250,
    repeats=5,
    tool_stream_times=5,
    loops=200,
    small_requests=500,
    reused_requests=20,
    probe_runs=10,
)
QUICK = suites.Config(
    deltas=2_000,
    calls=8,
    fragments=250,
    repeats=2,
    tool_stream_times=1,
    loops=20,
    small_requests=50,
    reused_requests=5,
    probe_runs=3,
)


async def _in_process(server: ServerProcess, config: suites.Config) -> list[Row]:
    rows: list[Row] = []
    async with httpx.AsyncClient() as client:
        ctx = suites.Context(server, client, config)
        for suite in (suites.stream_rows, suites.loop_rows, suites.tiny_rows):
            rows += await suite(ctx)
        rows += await suites.connection_rows(ctx)
    return rows


def measure(config: suites.Config) -> list[Row]:
    """Every benchmark's rows, in table order."""
    with ServerProcess(
        deltas=config.deltas, calls=config.calls, fragments=config.fragments
    ) as server:
        rows = asyncio.run(_in_process(server, config))
        rows += probes.first_request_rows(server.url("short"), config.probe_runs)
    return rows + probes.import_rows(config.probe_runs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="aiwrapper benchmarks against raw httpx")
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--json", action="store_true", help="also write benchmarks/results.json")
    args = parser.parse_args(argv)
    config = QUICK if args.quick else FULL
    start = time.perf_counter()
    try:
        rows = measure(config)
    except suites.WrongResultError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1
    print(report.format_table(rows))
    print(
        f"\n({'quick' if args.quick else 'full'} run, {time.perf_counter() - start:.1f} s; "
        "best of repeats for rates, median of fresh processes for probes)"
    )
    if args.json:
        report.write_json(rows, HERE / "results.json", quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
