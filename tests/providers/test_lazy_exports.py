"""Choosing one provider loads none of the others' wire code, and no gateway front-end.

Each package exports its provider, decoders, encoders and front-ends by name, but loads them
only when a name is first read. What is loaded is checked in a fresh interpreter, where no
other test has imported anything yet.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
import types

import pytest

import aiwrapper.providers
from aiwrapper.providers._lazy import lazy_exports

PACKAGES = sorted(m.name for m in pkgutil.iter_modules(aiwrapper.providers.__path__) if m.ispkg)
OPENAI_VENDOR = ("openai", "openai_responses")
WIRE_PARTS = ("_provider", "_encode", "_decode", "_errors")
PRINT_LOADED = "import sys, json; print(json.dumps(sorted(m for m in sys.modules)))"


def _loaded_after(code: str) -> list[str]:
    """The ``aiwrapper.providers`` modules a fresh interpreter has loaded after ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{PRINT_LOADED}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout)
    return [m for m in loaded if m.startswith("aiwrapper.providers.")]


def _of_packages(loaded: list[str], packages: tuple[str, ...] | list[str]) -> list[str]:
    return [m for m in loaded if m.split(".")[2] in packages]


def test_the_packages_found_are_the_ones_these_tests_know() -> None:
    assert PACKAGES == [
        "anthropic",
        "bedrock",
        "gemini",
        "ollama",
        "openai",
        "openai_responses",
        "scripted",
    ]


def test_importing_aiwrapper_imports_no_provider_package() -> None:
    loaded = _loaded_after("import aiwrapper")
    assert _of_packages(loaded, PACKAGES) == []


def test_choosing_openai_loads_no_other_vendor_and_no_front_end() -> None:
    loaded = _loaded_after("from aiwrapper import Lang; Lang.openai(api_key='x')")
    others = [name for name in PACKAGES if name not in OPENAI_VENDOR]
    assert _of_packages(loaded, others) == []
    assert [m for m in loaded if m.rsplit(".", 1)[1].startswith("_front")] == []
    assert "aiwrapper.providers.openai._provider" in loaded  # the one it needs
    responses_wire = [m for m in _of_packages(loaded, ["openai_responses"]) if "._choice" not in m]
    assert responses_wire == ["aiwrapper.providers.openai_responses"]  # the wire choice alone


def test_a_rules_lookup_loads_no_provider_and_no_front_end() -> None:
    code = (
        "from aiwrapper._knowledge._tables import rules_for, catalogue_ids\n"
        "assert rules_for('anthropic', 'claude-opus-4-7')['thinking_form'] == 'adaptive_only'\n"
        "assert catalogue_ids()['openai-responses'] == 'openai'"
    )
    loaded = _loaded_after(code)
    assert {m.split(".")[2] for m in _of_packages(loaded, PACKAGES)} == set(PACKAGES)
    wire = [m for m in loaded if m.rsplit(".", 1)[1] in WIRE_PARTS or "._front" in m]
    assert wire == []


def test_the_gateway_still_finds_every_front_end_in_a_fresh_interpreter() -> None:
    code = (
        "from aiwrapper.providers._registry import frontends\n"
        "from aiwrapper.providers import openai\n"
        "mounts = frontends()\n"
        "assert sorted(mounts.by_path) == "
        "['/v1/chat/completions', '/v1/messages', '/v1/responses'], mounts\n"
        "assert mounts.default is openai.DEFAULT_FRONTEND\n"
        "assert mounts.by_path['/v1/chat/completions'] is mounts.default\n"
        "assert type(mounts.by_path['/v1/messages']).__name__ == 'AnthropicMessages'\n"
        "assert type(mounts.by_path['/v1/responses']).__name__ == 'ResponsesAPI'"
    )
    loaded = _loaded_after(code)
    assert "aiwrapper.providers.anthropic._front" in loaded
    assert "aiwrapper.providers.openai_responses._front" in loaded


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_is_importable_as_before(package: str) -> None:
    module = importlib.import_module(f"aiwrapper.providers.{package}")
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    starred: dict[str, object] = {}
    exec(f"from aiwrapper.providers.{package} import *", starred)
    assert set(module.__all__) <= set(starred)


def test_a_name_read_lazily_is_the_defining_modules_own() -> None:
    from aiwrapper.providers import anthropic, gemini, openai_responses
    from aiwrapper.providers.anthropic import _provider
    from aiwrapper.providers.gemini import _provider as gemini_provider
    from aiwrapper.providers.openai_responses import _choice as responses_choice

    assert anthropic.AnthropicProvider is _provider.AnthropicProvider
    assert gemini.VertexConfig is gemini_provider.VertexConfig
    assert set(openai_responses.CATALOGUE_IDS) == {responses_choice.NAME}


def test_a_built_name_is_made_once_and_kept_on_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    package = types.ModuleType("lazy_probe")
    monkeypatch.setitem(sys.modules, "lazy_probe", package)
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    package.__getattr__ = lazy_exports("lazy_probe", {}, {"THING": make})  # type: ignore[method-assign]

    first = package.THING
    assert package.THING is first
    assert len(made) == 1
    assert package.__dict__["THING"] is first


def test_an_unknown_name_is_an_attribute_error() -> None:
    from aiwrapper.providers import openai

    with pytest.raises(
        AttributeError, match=r"'aiwrapper.providers.openai' has no attribute 'Nope'"
    ):
        getattr(openai, "Nope")  # noqa: B009
    assert not hasattr(openai, "MODEL_INFO")
