"""Dialects are found by name: ``"<provider>[-<variant>]"`` leads to that provider's package."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import aiwrapper.providers
from aiwrapper._errors import ToolDefinitionError
from aiwrapper._tools import DIALECTS, tool
from aiwrapper._tools.dialects import dialect_names

EXAMPLE = """
def _plain(head, parameters, strict):
    return {"example": {**head, "schema": parameters, "strict": strict}}


def _refuse(head, parameters, strict):
    from aiwrapper._tools.dialects import DialectError

    raise DialectError("the example wire takes no parameters")


SCHEMA_DIALECTS = {"example": _plain, "example-none": _refuse}
"""


@tool
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper()


@pytest.fixture
def extra_providers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on the providers package's path, for packages made by a test."""
    monkeypatch.setattr(
        aiwrapper.providers, "__path__", [*aiwrapper.providers.__path__, str(tmp_path)]
    )
    dialect_names.cache_clear()
    yield tmp_path
    dialect_names.cache_clear()
    for name in ("example", "broken"):
        sys.modules.pop(f"aiwrapper.providers.{name}", None)


def _package(root: Path, name: str, source: str) -> None:
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(source, encoding="utf-8")


def test_dialects_lists_every_provider_packages_dialects_in_package_name_order() -> None:
    assert DIALECTS == (
        "anthropic",
        "bedrock",
        "gemini",
        "gemini-json",
        "ollama",
        "openai",
        "openai-strict",
    )


def test_a_new_provider_package_brings_its_dialects_without_other_edits(
    extra_providers: Path,
) -> None:
    _package(extra_providers, "example", EXAMPLE)

    declaration: Any = shout.schema_for("example")

    assert declaration == {
        "example": {
            "name": "shout",
            "description": "Say it louder.",
            "schema": shout.parameters,
            "strict": None,
        }
    }
    assert dialect_names()[:5] == ("anthropic", "bedrock", "example", "example-none", "gemini")


def test_a_dialect_that_cannot_express_a_schema_is_a_tool_definition_error(
    extra_providers: Path,
) -> None:
    _package(extra_providers, "example", EXAMPLE)

    with pytest.raises(ToolDefinitionError, match="'shout': the example wire takes no"):
        shout.schema_for("example-none")


@pytest.mark.parametrize(
    "dialect", ["", "-", "mistral", "openai-loose", "base", "_doctor", "scripted", "x.y", "../x"]
)
def test_a_name_that_leads_to_no_dialect_is_unknown(dialect: str) -> None:
    with pytest.raises(ValueError, match=f"unknown dialect {dialect!r}; valid dialects: anthropic"):
        shout.schema_for(dialect)


def test_a_provider_package_that_cannot_import_is_not_taken_for_an_unknown_dialect(
    extra_providers: Path,
) -> None:
    _package(extra_providers, "broken", "import aiwrapper_no_such_dependency\n")

    with pytest.raises(ModuleNotFoundError, match="aiwrapper_no_such_dependency"):
        shout.schema_for("broken")


def test_a_strict_tool_that_a_strict_dialect_cannot_express_fails_when_declared() -> None:
    with pytest.raises(ToolDefinitionError, match=r"'settings'.*cannot be used in OpenAI strict"):

        @tool(strict=True)
        def configure(settings: dict[str, Any]) -> None:
            """Apply free-form settings."""
