"""What aiwrapper knows of each Claude model: its rows of the per-model rules.

``aiwrapper._knowledge._modelrules`` describes a row and merges the matching ones; these rows
say which
thinking form a Claude generation takes, which sampling parameters it refuses, its output
limit and whether it has native structured output. The registry gathers them with every
other package's rows for ``aiwrapper.models``.
"""

from __future__ import annotations

import re

from ..._knowledge._modelrules import Match, Rule, rule, rule_table
from ._name import NAME

__all__ = ["EXAMPLE_MODELS", "MODEL_RULES", "claude_version", "rules_for"]

# "claude-opus-4-7", "claude-sonnet-4-5-20250929", "anthropic.claude-haiku-4-5-v1:0",
# "claude-opus-4-20250514" (4.0: the 8-digit date is not a minor version).
_NEW_STYLE = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2})(?!\d))?")
# "claude-3-7-sonnet-20250219", "claude-3-5-haiku-latest", "claude-3-opus-20240229".
_OLD_STYLE = re.compile(r"claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)")


def claude_version(model: str) -> tuple[str, int, int] | None:
    """The tier and version of a Claude id (``("opus", 4, 7)``), or None when unreadable."""
    name = model.lower().replace(".", "-")  # OpenRouter spells "claude-opus-4.6"
    new = _NEW_STYLE.search(name)
    if new is not None:
        return new.group(1), int(new.group(2)), int(new.group(3) or 0)
    old = _OLD_STYLE.search(name)
    if old is not None:
        return old.group(3), int(old.group(1)), int(old.group(2) or 0)
    return None


def _claude(since: tuple[int, int], tier: str | None = None) -> Match:
    def match(model: str) -> bool:
        found = claude_version(model)
        return found is not None and found[1:] >= since and tier in (None, found[0])

    return match


# Anthropic's models overview and API release notes: thinking from 3.7; budgets only up to
# 4.5, adaptive thinking from 4.6, adaptive only (and no sampling parameters) from Opus 4.7;
# temperature and top_p exclusive from Opus 4.1; native structured output
# (output_config.format) generally available from the 4.5 models on.
MODEL_RULES: tuple[Rule, ...] = (
    rule(NAME, _claude((0, 0)), tool_call=True, reasoning=False, thinking_form="budget"),
    rule(NAME, _claude((0, 0)), structured_output=False, max_output_tokens=4096),
    rule(NAME, _claude((3, 5)), max_output_tokens=8192),
    rule(NAME, _claude((3, 7)), reasoning=True, max_output_tokens=64000),
    rule(NAME, _claude((4, 0), "opus"), max_output_tokens=32000),
    rule(NAME, _claude((4, 1)), one_sampler=True),
    rule(NAME, _claude((4, 5)), structured_output=True, max_output_tokens=64000),
    rule(NAME, _claude((4, 6)), thinking_form="adaptive"),
    rule(NAME, _claude((4, 6), "opus"), max_output_tokens=128000),
    rule(
        NAME,
        _claude((4, 7)),
        thinking_form="adaptive_only",
        temperature=False,
        thinking_display="summarized",
    ),
)

# Current models, newest first: what a capability warning suggests without a catalogue.
EXAMPLE_MODELS = {NAME: ("claude-opus-4-7", "claude-sonnet-4-6", "claude-haiku-4-5")}

# The merged facts of one of these providers' models (``rules_for(name, model)``).
rules_for = rule_table(MODEL_RULES)
