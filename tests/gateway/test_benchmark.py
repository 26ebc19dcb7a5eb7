"""The gateway benchmarks run in their quick mode: 200 concurrent streams, all complete and right;
the CPU of a small request split by layer.

Timing is never asserted (figures on a shared machine are noise); the exit status says whether
every stream came back complete and correct.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gateway.py"

pytestmark = pytest.mark.benchmark


def test_the_quick_gateway_benchmark_relays_200_streams_correctly() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "200 concurrent streams of 200 chunks" in done.stdout
    assert "200 complete and right" in done.stdout
    for row in (
        "added latency per request (ms)",
        "CPU per small request (ms)",
        "CPU per streamed chunk (us)",
        "CPU per streamed chunk, Responses client (us)",
        "CPU per streamed chunk, 50 streams (us)",
        "CPU per streamed chunk, 50 streams, Responses (us)",
    ):
        assert row in done.stdout, row


def test_the_quick_split_benchmark_prints_each_layers_share() -> None:
    script = SCRIPT.with_name("gateway_split.py")
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for row in (
        "Lang.chat in process (gateway.py's direct)",
        "server floor: uvicorn + a fixed answer",
        "bare ASGI app answering with Lang.chat",
        "Gateway, access log on (as gateway.py)",
        "the gateway's own code (gateway - lang)",
        "the access log (gateway+log - gateway)",
    ):
        assert row in done.stdout, row
