"""Measurements that need a fresh interpreter: import time, memory, and the first request.

Each probe is a small program run with ``python -c`` (nothing imported before the timer but
``time``); it prints its figures on one line. The median over several runs is reported, the
runs of aiwrapper and of its baseline alternating.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile

from harness import HERE, ROOT, Row

__all__ = ["first_request_rows", "import_rows"]

_IMPORT = """\
import time
start = time.perf_counter()
import {module}
elapsed = time.perf_counter() - start
with open("/proc/self/status") as status:
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
print(elapsed, rss)
"""

_FIRST_AIWRAPPER = """\
import asyncio, time
import aiwrapper

async def main():
    start = time.perf_counter()
    lang = aiwrapper.Lang.openai("gpt-4o-mini", api_key="k", base_url={root!r} + "/v1")
    built = time.perf_counter()
    result = await lang.ask("go")
    done = time.perf_counter()
    assert result.answer, result
    await lang.aclose()
    print(built - start, done - built)

asyncio.run(main())
"""

_FIRST_HTTPX = """\
import asyncio, time
import baselines, httpx

async def main():
    start = time.perf_counter()
    async with httpx.AsyncClient() as client:
        built = time.perf_counter()
        text, _ = await baselines.openai_stream(client, {root!r})
        done = time.perf_counter()
    assert text
    print(built - start, done - built)

asyncio.run(main())
"""


def _environment(cache: str) -> dict[str, str]:
    """The probes' environment: bytecode cached (as after ``pip install``), not in the tree.

    Without a cache every run would compile aiwrapper from source while httpx, installed by
    pip, loads its ``.pyc`` files; a cache prefix outside the checkout gives both the same.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(HERE)])
    return env


def _run(code: str, env: dict[str, str]) -> list[float]:
    command = [sys.executable, "-c", code]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return [float(value) for value in output.stdout.split()]


def _medians(codes: tuple[str, str], runs: int) -> tuple[list[float], list[float]]:
    """Column medians of each program's output over ``runs`` alternating runs.

    One untimed run of each fills the bytecode cache first.
    """
    with tempfile.TemporaryDirectory(prefix="aiwrapper-bench-pyc-") as cache:
        env = _environment(cache)
        for code in codes:
            _run(code, env)
        samples: tuple[list[list[float]], list[list[float]]] = ([], [])
        for _ in range(runs):
            for code, bucket in zip(codes, samples, strict=True):
                bucket.append(_run(code, env))
    return _column_medians(samples[0]), _column_medians(samples[1])


def _column_medians(samples: list[list[float]]) -> list[float]:
    return [statistics.median(column) for column in zip(*samples, strict=True)]


def import_rows(runs: int) -> list[Row]:
    """``import aiwrapper`` against ``import httpx``: time and resident memory."""
    codes = (_IMPORT.format(module="aiwrapper"), _IMPORT.format(module="httpx"))
    (ours_s, ours_kb), (raw_s, raw_kb) = _medians(codes, runs)
    extra_ms = (ours_s - raw_s) * 1000
    extra_mb = (ours_kb - raw_kb) / 1024
    return [
        Row(
            "import time (vs import httpx)",
            "ms",
            ours_s * 1000,
            raw_s * 1000,
            f"<= +25 ms (+{extra_ms:.1f})",
            extra_ms <= 25,
        ),
        Row(
            "RSS after import (vs httpx)",
            "MB",
            ours_kb / 1024,
            raw_kb / 1024,
            f"<= +5 MB (+{extra_mb:.1f})",
            extra_mb <= 5,
        ),
    ]


def first_request_rows(root: str, runs: int) -> list[Row]:
    """A fresh process: building ``Lang`` (vs ``AsyncClient``), then its first request.

    aiwrapper imports httpx and the provider module when a factory first runs, and opens
    its ``httpx.AsyncClient`` (whose SSL context is the big cost) at the first request;
    the baseline builds its client up front. Both costs are shown, and their sum.
    """
    codes = (_FIRST_AIWRAPPER.format(root=root), _FIRST_HTTPX.format(root=root))
    ours, raw = ([1000 * s for s in side] for side in _medians(codes, runs))
    total = sum(ours)
    return [
        Row("construct Lang (vs AsyncClient)", "ms", ours[0], raw[0], "-", None),
        Row("first request after construction", "ms", ours[1], raw[1], "<= 50 ms", ours[1] <= 50),
        Row("construct + first request", "ms", total, sum(raw), "-", None),
    ]
