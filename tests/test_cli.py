"""The command line, run as a user runs it: ``python -m aiwrapper ...`` in a subprocess."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from aiwrapper import tool
from aiwrapper.__main__ import main as cli_main
from aiwrapper.providers import _doctor as doctor

from .media_samples import png
from .test_examples import offline_env

TOOLS = '''
from typing import Annotated

from aiwrapper import Param, tool


@tool
def get_weather(city: str, days: int = 1, extra: dict[str, int] | None = None) -> str:
    """Weather in a city.

    Args:
        city: City name, e.g. "Tokyo".
        colour: Not a parameter.
    """
    return "sunny"


def bare(x: int, note: Annotated[str, Param(max_length=5)] = "") -> int:
    return x


def undeclarable(x: int = 1) -> int:
    """Cannot be strict."""
    return x


undeclarable.__annotations__["x"] = object()  # no schema describes this annotation
'''


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aiwrapper", *args],
        capture_output=True,
        text=True,
        env=offline_env(),
        cwd=cwd,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mytools.py").write_text(textwrap.dedent(TOOLS))
    return tmp_path


def test_help_lists_every_command_and_the_demo_default() -> None:
    done = _run("--help")
    assert done.returncode == 0
    for command in ("ask", "doctor", "serve"):
        assert command in done.stdout
    assert "With no command: a demo" in done.stdout


def test_ask_streams_the_answer() -> None:
    done = _run("ask", "Hello there", "--provider", "offline")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "(offline model, no API key set) You said: Hello there\n"


def test_ask_sends_attached_images_and_documents_after_the_question(tmp_path: Path) -> None:
    chart, notes = tmp_path / "chart.png", tmp_path / "notes.txt"
    chart.write_bytes(png(4, 3))
    notes.write_text("Sales rose.", encoding="utf-8")
    done = _run(
        "ask", "Look", "--provider", "offline", "--attach", str(chart), "--attach", str(notes)
    )
    assert done.returncode == 0, done.stderr
    assert "You said: Look You sent an image/png image 'chart.png' (" in done.stdout
    assert "4x3 pixels). You sent a text/plain document 'notes.txt' (11 bytes)." in done.stdout


def test_ask_with_an_attachment_it_cannot_read_says_why(tmp_path: Path) -> None:
    done = _run("ask", "Look", "--provider", "offline", "--attach", str(tmp_path / "none.png"))
    assert done.returncode == 1
    assert done.stderr.startswith("error: Document.from_path: cannot read")


def test_ask_without_a_key_says_which_is_missing() -> None:
    done = _run("ask", "Hi", "--provider", "anthropic")
    assert done.returncode == 1
    assert "ANTHROPIC_API_KEY" in done.stderr
    assert done.stdout == ""


def test_doctor_prints_each_declaration_and_what_is_lossy(project: Path) -> None:
    done = _run("doctor", "mytools:get_weather", cwd=project)
    assert done.returncode == 0, done.stderr
    for provider in ("openai", "anthropic", "gemini", "ollama"):
        assert f"== {provider} ==" in done.stdout
    assert "the docstring documents 'colour', which is not a parameter" in done.stdout
    assert "parameter 'days' has no description" in done.stdout
    assert "openai: strict mode falls back to non-strict" in done.stdout
    assert "ollama: its schema subset drops" in done.stdout


def test_doctor_reads_a_plain_function_and_names_missing_descriptions(project: Path) -> None:
    done = _run("doctor", "mytools:bare", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "the tool has no description" in done.stdout
    assert "parameter 'x' has no description" in done.stdout


def test_doctor_fails_on_a_tool_that_cannot_be_declared(project: Path) -> None:
    done = _run("doctor", "mytools:undeclarable", cwd=project)
    assert done.returncode == 1
    assert "parameter 'x' has unsupported type" in done.stderr
    assert _run("doctor", "mytools", cwd=project).returncode == 1  # not MODULE:FUNCTION


def test_the_demo_stays_the_default() -> None:
    done = _run()
    assert done.returncode == 0, done.stderr
    assert "running on the offline model" in done.stderr  # from_env says so, once
    assert "get_weather" in done.stdout


def test_a_provider_that_cannot_declare_it_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first.
            b: The second.
        """
        return a + b

    monkeypatch.setitem(doctor.PROVIDER_DIALECTS, "future", "no-such-dialect")
    report = doctor.diagnose(add)
    assert report.findings == []
    assert len(report.errors) == 1
    assert report.errors[0].startswith("future: unknown dialect")


def test_property_names_some_provider_refuses_are_found() -> None:
    from aiwrapper._tools import to_tool

    spec = {
        "name": "lookup",
        "description": "Look up.",
        "parameters": {
            "type": "object",
            "properties": {"first name": {"type": "string", "description": "A name."}},
        },
    }
    findings = doctor.diagnose(to_tool(spec)).findings
    assert any("property 'first name' is not portable" in f for f in findings)


def test_ask_names_an_unknown_provider_and_lists_the_known_ones() -> None:
    done = _run("ask", "Hi", "--provider", "bogus")
    assert done.returncode == 1
    assert done.stderr.startswith("error: unknown provider 'bogus'; known: openai, anthropic, ")
    assert "offline" in done.stderr
    assert "groq" in done.stderr
    assert "needs --model" not in done.stderr


def test_ask_with_a_preset_and_no_model_says_it_needs_one() -> None:
    done = _run("ask", "Hi", "--provider", "vllm")
    assert done.returncode == 1
    assert done.stderr == "error: the compatible server's preset 'vllm' needs a model\n"


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("x = 1 / 0\n", "ZeroDivisionError: division by zero"),
        ("def broken(:\n", "SyntaxError: "),
        ("import no_such_module_here\n", "No module named 'no_such_module_here'"),
    ],
    ids=["raises", "syntax", "imports-missing"],
)
def test_doctor_on_a_module_that_fails_to_import_says_why_in_one_line(
    tmp_path: Path, source: str, said: str
) -> None:
    (tmp_path / "brokentools.py").write_text(source)
    done = _run("doctor", "brokentools:f", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: ")
    assert said in done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--api-key", ""], "serve: api_keys must be non-empty strings\n"),
        (["--port", "99999"], "serve: --port 99999 is not a port number (0-65535)\n"),
        (["--port", "-1"], "serve: --port -1 is not a port number (0-65535)\n"),
        (["--header-timeout", "0"], "serve: header_timeout must be a positive number, not 0.0\n"),
        (["--max-connections", "0"], "serve: max_connections must be a positive number, not 0\n"),
        (["--cors-origin", "evil"], "serve: cors_origins takes origins like "),
        (["--route", "other=bogus:m"], "serve: unknown provider 'bogus'; known: openai, "),
        (["--route", "local=offline:x"], "serve: the route 'local' is given twice\n"),
    ],
)
def test_serve_says_what_is_wrong_with_its_options_in_one_line(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # In this process (the options are checked before anything starts or is logged): one
    # interpreter per case would cost more than the whole check.
    assert cli_main(["serve", "--route", "local=offline:x", *args]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(said)
    assert err.count("\n") == 1
    assert out == ""


def test_serve_with_a_wrong_option_exits_2_with_one_line_and_no_traceback() -> None:
    done = _run("serve", "--route", "local=offline:x", "--port", "99999")
    assert done.returncode == 2
    assert done.stderr == "serve: --port 99999 is not a port number (0-65535)\n"
    assert done.stdout == ""
