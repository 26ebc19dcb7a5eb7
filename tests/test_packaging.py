"""What a user sees of the package before installing it: license, metadata, documented API."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import get_args

import pytest

from aiwrapper._conversation._result import CallStatus

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_license_file_is_the_mit_license_the_metadata_names() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n")
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


def test_the_classifiers_name_every_supported_python_version() -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    low = int(re.fullmatch(r">=3\.(\d+)", project["requires-python"]).group(1))  # type: ignore[union-attr]
    versions = {c.rsplit(" ", 1)[1] for c in project["classifiers"] if re.search(r":: 3\.\d+$", c)}
    assert versions == {f"3.{minor}" for minor in range(low, 14)}
    assert f"3.{sys.version_info.minor}" in versions or sys.version_info >= (3, 14)


def test_the_readme_names_every_call_status() -> None:
    for status in get_args(CallStatus):
        assert f"`{status}`" in README, status


def test_the_readme_documents_the_provider_options() -> None:
    names = ("betas", "version=", "api_version", "schema_dialect", "keep_alive", "tool_calls_in")
    for name in names:
        assert name in README, name
