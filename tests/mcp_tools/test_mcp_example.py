"""examples/mcp_tools.py does what its docstring says, on the offline model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mcp_tools.py"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def test_the_mcp_example_makes_the_four_calls_its_docstring_announces() -> None:
    env = {k: v for k, v in os.environ.items() if k not in KEYS and not k.startswith("AIWRAPPER")}
    env["PYTHONPATH"] = str(EXAMPLE.parents[1])
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    calls = [line for line in done.stdout.splitlines() if line.startswith("→ ")]
    assert calls == [
        "→ units_metres_to_feet({'metres': 3}) → done",
        "→ units_metres_to_feet({'metres': 20}) → done",
        "→ units_celsius_to_fahrenheit({'celsius': 3}) → done",
        "→ units_celsius_to_fahrenheit({'celsius': 20}) → done",
    ]
    assert "(four calls)" in " ".join(EXAMPLE.read_text().split())
