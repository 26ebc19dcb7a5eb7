"""Every example script runs offline and prints something."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AIWRAPPER_PROVIDER",
)


# What each example shows on the offline model, where the value comes from the question.
SHOWS = {
    "sequential_tools": "['100 -> bob']",  # "Send 100 to bob": not to "Send"
    "dict_definition": "hit for 'How do I stream?'",
    "typed_answers": "Oslo: ",
    "chart_tool": "an image/png image 'chart.png' (",  # the model was shown the chart
    "save_and_continue": "sunny, 21 °C in Rome",  # the saved conversation went on
    "approval_that_waits": "waiting for a person: refund({'order': 7, 'amount': 120})",
    "durable_worker": "card charged 1 time(s); receipt attempted 2 time(s)",
}


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_offline(script: Path) -> None:
    if script.stem.startswith("mcp_"):  # needs the optional extra aiwrapper[mcp]
        pytest.importorskip("mcp")
    if script.stem.startswith("durable_"):  # needs the optional extra aiwrapper[dbos]
        pytest.importorskip("dbos")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=offline_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "offline model" in done.stdout
    assert SHOWS.get(script.stem, "") in done.stdout


def test_the_demo_runs_offline() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aiwrapper"],
        capture_output=True,
        text=True,
        env=offline_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "running on the offline model" in done.stderr  # from_env says so, once
    assert done.stderr.count("offline model") == 1
    assert "→ get_weather(" in done.stdout
    assert "← convert_currency:" in done.stdout
    assert "[2 requests, 2 tool calls" in done.stdout


def test_the_demo_printer_starts_each_turn_where_the_last_one_ended(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from aiwrapper import Lang, tool
    from aiwrapper.__main__ import Printer

    @tool
    def roll() -> int:
        """Roll a die."""
        return 4

    script = [{"text": "Ok", "function_calls": [{"name": "roll"}]}, "You rolled a 4."]
    Lang.scripted(script).ask_sync("Roll", functions=[roll], on_event=Printer())
    assert capsys.readouterr().out == "Ok\n→ roll({})\n← roll: 4\nYou rolled a 4."
