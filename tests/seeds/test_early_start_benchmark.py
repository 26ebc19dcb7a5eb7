"""The early-start benchmark runs in its quick mode and prints its three timings.

Timing is never asserted (a shared machine makes it noise); the run must finish, every way of
running the round must get the right answer, and the report must name each of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "early_start.py"

pytestmark = pytest.mark.benchmark


def test_the_early_start_benchmark_runs_and_reports_each_way() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines()]
    for way in ("raw httpx", "early_start=False", "early_start=True", "saved by early start"):
        assert sum(line.startswith(way) for line in lines) == 2, way  # once per wire
    assert "anthropic\n" in done.stdout
    assert "openai\n" in done.stdout
