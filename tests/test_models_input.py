"""The model facts API refuses what it cannot use with a ``ConfigError`` naming what it takes:
no ``AttributeError`` from a ``None`` name, no negative or infinite price in the registry."""

from __future__ import annotations

import math
from typing import Any

import pytest

from aiwrapper import ConfigError
from aiwrapper._knowledge import _catalogue as catalogue
from aiwrapper._knowledge._modelfacts import ModelFacts
from aiwrapper.models import ModelCost, model_info, models_with, register_model

pytestmark = pytest.mark.usefixtures("fresh_model_facts")

PROVIDER = r"provider must be a provider's name as a string \(a Lang factory's\)"
MODEL = r"model must be a model id as a string"


@pytest.mark.parametrize(
    ("provider", "model", "message"),
    [
        (None, None, PROVIDER + ", not None"),
        (5, "gpt-4o", PROVIDER + ", not 5"),
        ("openai", None, MODEL + ", not None"),
        ("openai", ["gpt-4o"], MODEL + r", not \['gpt-4o'\]"),
    ],
)
def test_model_info_refuses_a_name_that_is_not_a_string(
    provider: Any, model: Any, message: str
) -> None:
    with pytest.raises(ConfigError, match=r"^model_info: " + message + "$"):
        model_info(provider, model)


CAPABILITIES = "tool_call, reasoning, structured_output, temperature"


@pytest.mark.parametrize(
    ("capability", "shown"), [("flying", "'flying'"), ("cost", "'cost'"), (None, "None")]
)
def test_models_with_names_the_capabilities_it_knows(capability: Any, shown: str) -> None:
    expected = rf"^models_with: capability must be one of {CAPABILITIES}, not {shown}$"
    with pytest.raises(ConfigError, match=expected):
        models_with("openai", capability)


@pytest.mark.parametrize("limit", [0, -1, "5", 2.5, True])
def test_models_with_refuses_a_limit_that_is_not_a_positive_int(limit: Any) -> None:
    with pytest.raises(ConfigError, match=r"^models_with: limit must be a positive int, not "):
        models_with("openai", "tool_call", limit=limit)


def test_models_with_refuses_a_provider_that_is_not_a_string() -> None:
    with pytest.raises(ConfigError, match=r"^models_with: " + PROVIDER + ", not None$"):
        models_with(None, "tool_call")  # type: ignore[arg-type]


def test_register_model_refuses_names_that_are_not_strings_or_empty() -> None:
    with pytest.raises(ConfigError, match=r"^register_model: " + PROVIDER + ", not 5$"):
        register_model(5, None)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"^register_model: " + MODEL + ", not ''$"):
        register_model("openai", "")


def test_an_empty_model_name_is_simply_unknown() -> None:
    assert model_info("openai", "") is None


def test_the_facts_a_run_keeps_are_none_for_a_model_without_a_string_name() -> None:
    # A custom Model whose ``model`` is None: nothing is known, the run goes on unchecked.
    assert ModelFacts().info("custom", None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        (
            {"cost": ModelCost(input=-1.0)},
            r"cost\.input must be a finite price >= 0 .*, not -1\.0",
        ),
        ({"cost": ModelCost(output=math.nan)}, r"cost\.output must be a finite .*, not nan"),
        ({"cost": ModelCost(cache_read=math.inf)}, r"cost\.cache_read must be .*, not inf"),
        ({"cost": ModelCost(cache_write="1")}, r"cost\.cache_write must be .*, not '1'"),  # type: ignore[arg-type]
        ({"cost": 0.5}, r"cost must be a ModelCost or None, not 0\.5"),
        ({"tool_call": "yes"}, r"tool_call must be True, False or None, not 'yes'"),
        ({"max_output_tokens": -5}, r"max_output_tokens must be a positive int or None, not -5"),
        ({"context_window": 1.5}, r"context_window must be a positive int or None, not 1\.5"),
        ({"context_window": True}, r"context_window must be a positive int or None, not True"),
        ({"input_modalities": "text"}, r"input_modalities must be a tuple of strings"),
        ({"input_modalities": ("text", 5)}, r"input_modalities must be a tuple of strings"),
    ],
)
def test_register_model_refuses_facts_of_the_wrong_kind_and_keeps_nothing(
    facts: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=r"^register_model: " + message):
        register_model("openai", "my-model", **facts)
    assert model_info("openai", "my-model") is None


def test_register_model_takes_a_free_model_and_modalities_as_a_list() -> None:
    info = register_model(
        "openai", "my-model", cost=ModelCost(input=0, output=0.0), input_modalities=["text"]
    )
    assert (info.cost, info.input_modalities) == (ModelCost(0, 0.0), ("text",))


def test_a_catalogue_price_that_is_negative_or_not_finite_is_unknown() -> None:
    entry = {"id": "m", "cost": {"input": -1, "output": math.inf, "cache_read": 0.5}}
    assert catalogue.to_info("openai", entry).cost == ModelCost(None, None, 0.5, None)
