"""The registry gathers what each provider package knows of models; rows merge in order."""

from __future__ import annotations

from aiwrapper._knowledge._modelrules import ids, merged_facts, rule
from aiwrapper._knowledge._tables import (
    catalogue_ids,
    example_models,
    header_prefixes,
    rules_for,
)


def test_each_packages_rows_are_found_by_their_providers_name() -> None:
    assert rules_for("anthropic", "claude-opus-4-7")["thinking_form"] == "adaptive_only"
    assert rules_for("gemini", "gemini-2.5-flash")["output_with_tools"] is False
    assert rules_for("openai", "o3-pro-2025-06-10")["responses_only"] is True
    assert rules_for("deepseek", "deepseek-chat") == {"structured_output": False}
    assert rules_for("openai", "claude-opus-4-7") == {}  # rows are the provider's own


def test_catalogue_ids_are_gathered_from_every_package() -> None:
    assert dict(catalogue_ids()) == {
        "bedrock": "amazon-bedrock",
        "gemini": "google",
        "ollama": "ollama-cloud",
        "openai-responses": "openai",
        "together": "togetherai",
    }


def test_example_models_come_from_the_package_that_names_them() -> None:
    assert example_models("anthropic")[0] == "claude-opus-4-7"
    assert example_models("gemini") == (
        "gemini-3-pro-preview",
        "gemini-2.5-pro",
        "gemini-2.5-flash",
    )
    assert example_models("nobody") == ()


def test_later_rows_refine_earlier_ones_of_the_same_provider_only() -> None:
    rows = (
        rule("p", ids("m-"), tool_call=True, reasoning=False),
        rule("q", ids("m-"), reasoning=True),
        rule("p", ids("m-2"), reasoning=True),
    )
    assert merged_facts(rows, "p", "m-1") == {"tool_call": True, "reasoning": False}
    assert merged_facts(rows, "p", "M-2") == {"tool_call": True, "reasoning": True}
    assert merged_facts(rows, "p", "x-2") == {}


def test_header_prefixes_are_gathered_from_every_package() -> None:
    assert sorted(header_prefixes()) == ["anthropic-", "openai-", "x-goog-"]
