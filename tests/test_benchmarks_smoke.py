"""The benchmark suite runs end to end in its quick mode and prints its table.

Timing is never asserted here (figures on a shared machine are noise); the run must finish,
every benchmark must assemble the right answer (else the exit status is 1), and the table must
have its header and one row per metric.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RUN = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"

pytestmark = pytest.mark.benchmark

EXPECTED_ROWS = (
    "openai text stream, Lang.ask",
    "openai tool stream 8x250, Lang.ask",
    "anthropic text stream, Lang.ask",
    "gemini text stream, Lang.ask",
    "ollama text stream, Lang.ask",
    "tool loop, 4 sync tools",
    "same, baseline on anyio's task group and to_thread",
    "small requests, sequential",
    "connections for 5 streamed requests",
    "first request after construction",
    "import time (vs import httpx)",
    "RSS after import (vs httpx)",
)


def test_quick_benchmark_run_prints_the_table() -> None:
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0].split()
    assert header == ["metric", "unit", "aiwrapper", "baseline", "ratio", "target", "ok"]
    for row in EXPECTED_ROWS:
        assert row in done.stdout, row


def test_quick_responses_benchmark_assembles_every_answer() -> None:
    script = RUN.parent / "responses.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for row in (
        "responses text 5,000 deltas, on_event vs raw+callback",
        "responses tool stream 8x250, on_event vs raw+callback",
    ):
        assert row in done.stdout, row


def test_quick_stream_variants_benchmark_decodes_every_variant() -> None:
    # Every wire's recorded streams grown and rewritten (padding, key order, spacing,
    # keep-alives, CRLF): both sides must assemble each one's text or calls (exit status 0).
    script = RUN.parent / "stream_variants.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()]
    cells = {tuple(row[:3]) for row in rows if len(row) == 5 and row[3].endswith("x")}
    wires = ("openai", "anthropic", "gemini", "ollama", "openai-responses")
    variants = ("recorded", "padding", "shuffled", "spaced", "keepalive", "crlf", "all")
    tools = ("openai", "anthropic", "openai-responses")
    expected = {(w, "text", v) for w in wires for v in variants}
    expected |= {(w, "tools", v) for w in tools for v in variants}
    assert cells == expected
    assert "peak memory added by one stream" in done.stdout


def test_quick_tool_loop_benchmark_runs_every_wire_both_ways() -> None:
    script = RUN.parent / "tool_loop.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick", "--loops", "3"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "wire",
        "aiwrapper",
        "us/loop",
        "raw",
        "us/loop",
        "raw/ours",
        "target",
    ]
    for wire in ("openai", "openai-responses", "anthropic", "gemini", "ollama"):
        for mode in ("", ", streamed"):
            assert any(line.startswith(f"{wire}{mode} ") for line in lines), (wire, mode)
    assert "CPU time of this process per loop" in done.stdout


def test_quick_media_benchmark_peaks_below_four_times_the_file_and_encodes_once() -> None:
    script = RUN.parent / "media_memory.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for wire in ("anthropic", "openai"):  # each wire's figures, both met
        assert f"\n{wire}: largest request body" in done.stdout
    assert done.stdout.count("base64 encodings over 5 requests carrying it: 1 (target 1): ok") == 2
    assert done.stdout.count("(target < 4x): ok") == 2


def test_quick_durable_cost_benchmark_prints_both_runs_and_their_ratio() -> None:
    pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")
    script = RUN.parent / "durable_cost.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "tool loop of 4 rounds, median of 4 runs each (wall time)"
    labels = [line.split(":")[0].strip() for line in lines[1:]]
    assert labels == ["not durable", "durable (SQLite)", "ratio", "checkpointing"]
    assert lines[-1].endswith("ms per tool round")
