"""Importing a provider package is light: the transport (and httpx) loads at the first model.

Declaring a strict tool renders every package's schema dialects, so each package is imported
then; each is checked in a fresh interpreter, where nothing else has loaded httpx yet.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

PACKAGES = ("anthropic", "gemini", "ollama", "openai", "openai_responses", "scripted")
LOADED = (
    "import sys; print(sorted(m for m in ('httpx', 'aiwrapper._wire._http') if m in sys.modules))"
)


def _loaded_after(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{LOADED}"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("package", PACKAGES)
def test_importing_a_provider_package_loads_no_transport(package: str) -> None:
    assert _loaded_after(f"import aiwrapper.providers.{package}") == "[]"


def test_declaring_a_strict_tool_loads_no_transport() -> None:
    code = (
        "from aiwrapper import tool\n"
        "@tool(strict=True)\n"
        "def add(a: int, b: int) -> int:\n"
        "    return a + b\n"
        "assert add.schema_for('openai-strict')['function']['strict'] is True"
    )
    assert _loaded_after(code) == "[]"


def test_building_a_model_loads_the_transport() -> None:
    code = "import aiwrapper.providers.anthropic as p; p.build(api_key='k')"
    assert _loaded_after(code) == "['aiwrapper._wire._http', 'httpx']"
