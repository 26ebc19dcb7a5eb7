"""Each provider declares what its wire offers a typed answer; a model that declares nothing
gets no forced call."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper._run._contract import NO_OUTPUT_SUPPORT, OutputSupport, output_support
from aiwrapper.providers._http_model import HttpModel
from aiwrapper.providers.anthropic import AnthropicProvider
from aiwrapper.providers.anthropic._output import output_schema_supported
from aiwrapper.providers.gemini import GeminiProvider
from aiwrapper.providers.ollama import OllamaProvider
from aiwrapper.providers.openai import OPENAI_PROFILE, OpenAIProvider, get_preset
from aiwrapper.providers.openai_responses import ResponsesProvider
from aiwrapper.providers.scripted import ScriptedModel

GROQ = get_preset("groq")[2]


@pytest.mark.parametrize(
    ("wire", "forced"),
    [
        (AnthropicProvider(api_key="k"), True),
        (GeminiProvider(api_key="k"), True),
        (OpenAIProvider(api_key="k", profile=OPENAI_PROFILE), True),
        (OpenAIProvider(api_key="k", profile=GROQ), False),
        (ResponsesProvider(api_key="k", profile=OPENAI_PROFILE), True),
        (ResponsesProvider(api_key="k", profile=GROQ), False),
        (OllamaProvider(), False),
        (ScriptedModel([]), False),
    ],
    ids=lambda value: type(value).__name__ if not isinstance(value, bool) else str(value),
)
def test_a_wire_forces_the_fallback_call_only_where_it_says_so(wire: Any, forced: bool) -> None:
    assert output_support(wire).forced_call is forced


def test_only_the_wire_that_gates_its_native_schemas_declares_a_gate() -> None:
    assert output_support(AnthropicProvider(api_key="k")).native_schemas is output_schema_supported
    assert output_support(GeminiProvider(api_key="k")).native_schemas is None


def test_what_declares_nothing_or_something_else_gets_no_support() -> None:
    class Declared:
        output_support = OutputSupport(forced_call=True)

    class Mistaken:
        output_support = True

    assert output_support(Declared()) == OutputSupport(forced_call=True)
    assert output_support(Mistaken()) is NO_OUTPUT_SUPPORT
    assert output_support(object()) is NO_OUTPUT_SUPPORT


def test_an_http_model_declares_what_its_provider_does() -> None:
    model = HttpModel.connect(AnthropicProvider(api_key="k"), "claude-sonnet-4-5")
    assert model.output_support is AnthropicProvider.output_support
