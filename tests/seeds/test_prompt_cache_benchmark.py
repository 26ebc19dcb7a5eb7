"""The prompt-caching benchmark: a 10-round loop billed the way Anthropic bills its cache.

The billing counts tokens, not time, so the savings are the same on every machine and are
asserted: a cold run (the first write at 1.25x, then reads at 0.1x) saves about 78%, a warm
run (the system prompt already cached) about 89%.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "prompt_cache.py"

pytestmark = pytest.mark.benchmark


def test_caching_saves_most_of_the_billed_input_of_a_ten_round_loop() -> None:
    command = [sys.executable, str(SCRIPT)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    saved = [float(x) for x in re.findall(r"saved by caching: ([\d.]+)%", done.stdout)]
    assert len(saved) == 2, done.stdout
    cold, warm = saved
    assert 75 <= cold < 80, done.stdout
    assert warm >= 85, done.stdout
