"""``ModelFacts``: a ``Lang`` looks each model up once, and again when its sources change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from aiwrapper import Lang
from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge import _models as models
from aiwrapper._knowledge._modelfacts import ModelFacts
from aiwrapper._run import _capabilities as capabilities
from aiwrapper.models import ModelInfo, register_model


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    """No registered models and no capability warnings given yet."""
    models._REGISTRY.entries.clear()
    capabilities._WARNED.seen.clear()
    yield
    models._REGISTRY.entries.clear()
    capabilities._WARNED.seen.clear()


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every call that reaches ``models.model_info``."""
    seen: list[tuple[str, str]] = []
    real = models.model_info

    def counted(provider: str, model: str) -> ModelInfo | None:
        seen.append((provider, model))
        return real(provider, model)

    monkeypatch.setattr(models, "model_info", counted)
    return seen


class _OneModel:
    def __init__(self, info: ModelInfo) -> None:
        self.info = info

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        return self.info if model == self.info.model else None


def test_a_model_is_looked_up_once_while_nothing_changes(lookups: list[Any]) -> None:
    facts = ModelFacts()
    first = facts.info("openai", "kept-model")
    assert facts.info("openai", "kept-model") is first
    assert facts.info("anthropic", "kept-model") is None  # another provider, another entry
    assert lookups == [("openai", "kept-model"), ("anthropic", "kept-model")]


def test_register_model_is_seen_at_the_next_lookup() -> None:
    facts = ModelFacts()
    assert facts.info("openai", "later-model") is None
    register_model("openai", "later-model", max_output_tokens=123)
    info = facts.info("openai", "later-model")
    assert info is not None
    assert info.max_output_tokens == 123


def test_a_registry_cleared_directly_is_seen_at_the_next_lookup() -> None:
    register_model("openai", "gone-model", max_output_tokens=7)
    facts = ModelFacts()
    assert facts.info("openai", "gone-model") is not None
    models._REGISTRY.entries.clear()
    assert facts.info("openai", "gone-model") is None


def test_a_swapped_catalogue_is_seen_at_the_next_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    facts = ModelFacts()
    old = _OneModel(ModelInfo("openai", "swapped", context_window=1000))
    new = _OneModel(ModelInfo("openai", "swapped", context_window=2000))
    monkeypatch.setattr(catalogue, "get", lambda: old)
    assert facts.info("openai", "swapped").context_window == 1000  # type: ignore[union-attr]
    monkeypatch.setattr(catalogue, "get", lambda: new)
    assert facts.info("openai", "swapped").context_window == 2000  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_runs_of_one_lang_look_their_model_up_once(lookups: list[Any]) -> None:
    lang = Lang.scripted(["one", "two", "three"])
    for prompt in ("a", "b", "c"):
        await lang.ask(prompt)
    assert lookups == [(lang.model.name, lang.model.model)]


@pytest.mark.anyio
async def test_a_model_registered_between_runs_changes_the_next_run() -> None:
    lang = Lang.scripted(["thought about it", "plain answer"])
    await lang.ask("Think", thinking="high")
    register_model(lang.model.name, lang.model.model, reasoning=False)
    with pytest.warns(models.CapabilityWarning, match="has no thinking"):
        await lang.ask("Think again", thinking="high")
    assert [r.options.thinking for r in lang.requests] == ["high", None]
