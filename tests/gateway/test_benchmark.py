"""The gateway benchmark runs in its quick mode: 200 concurrent streams, all complete and right.

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
