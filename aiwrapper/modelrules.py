"""aiwrapper's own per-model rules: one table the providers and ``aiwrapper.models`` consult.

The facts a provider must know about a model to build a request it accepts (which thinking form
a Claude generation takes, whether Gemini 2.x takes thinking levels, which models have native
structured output) lived in each provider module. They are rows of one table here, matched by
model id: later rows refine earlier ones, so a general rule comes first and its exceptions
after it. ``rules_for`` merges the facts of every matching row. The same facts overlay the
models.dev catalogue in ``aiwrapper.models`` (an id the table does not match is simply
unknown here, and providers then fall back to their permissive default shapes).

Facts use ``ModelInfo``'s field names (``tool_call``, ``reasoning``, ``structured_output``,
``temperature``, ``max_output_tokens``...) plus a few that only providers read:

* ``thinking_form``: Claude ``"budget"``, ``"adaptive"`` or ``"adaptive_only"``; Gemini
  ``"budget"`` (2.x: no ``thinkingLevel``);
* ``one_sampler``: ``temperature`` and ``top_p`` may not be sent together (Claude from Opus 4.1);
* ``thinking_display``: the Claude ``thinking.display`` to send when the default hides text;
* ``output_with_tools``: False when native structured output cannot be combined with function
  declarations in one request (Gemini 2.x).
* ``responses_only``: an OpenAI model that only the Responses API serves (``o3-pro``...).
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DYNAMIC_THINKING",
    "EFFORTS",
    "EXAMPLES",
    "THINKING_BUDGETS",
    "Rule",
    "claude_version",
    "rules_for",
    "thinking_budget",
    "thinking_effort",
]

Match = Callable[[str], bool]

# "claude-opus-4-7", "claude-sonnet-4-5-20250929", "anthropic.claude-haiku-4-5-v1:0",
# "claude-opus-4-20250514" (4.0: the 8-digit date is not a minor version).
_NEW_STYLE = re.compile(r"claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2})(?!\d))?")
# "claude-3-7-sonnet-20250219", "claude-3-5-haiku-latest", "claude-3-opus-20240229".
_OLD_STYLE = re.compile(r"claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)")
_GEMINI = re.compile(r"gemini-(\d+)")

# The one thinking table of every provider: the efforts the ``thinking`` option takes, lightest
# first, and the token budget each stands for. Each provider maps an effort to its wire (a level,
# or this budget) and refuses one its wire has no form for. The figures are Google's mapping of
# reasoning_effort to thinkingBudget for Gemini 2.5 (its OpenAI-compatible endpoint); every wire
# uses the same ones, so an effort and a budget mean the same thing on each provider: "low" is
# 1,024 tokens (also Anthropic's floor for budget_tokens), "medium" 8,192 and "high" 24,576.
# "minimal" (512, the highest floor of the 2.5 family, so valid on each 2.5 model) is sent only
# where the wire has that level.
THINKING_BUDGETS: Mapping[str, int] = types.MappingProxyType(
    {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
)
EFFORTS = ("low", "medium", "high")  # the efforts every provider takes
# ``thinking=-1``: the model sizes its own thinking as it goes (dynamic thinking) where the wire
# can ask for that; any other provider reads it as it reads every budget.
DYNAMIC_THINKING = -1


def thinking_budget(effort: str) -> int:
    """The token budget that ``effort`` stands for (``"medium"`` is 8,192)."""
    return THINKING_BUDGETS[effort]


def thinking_effort(budget: int) -> str:
    """The effort a token budget stands for: the smallest whose budget covers it.

    Each effort's own budget maps back to that effort (8,192 is ``"medium"``), 1,025 is
    ``"medium"`` and anything above 8,192 is ``"high"``.
    """
    for effort in EFFORTS:
        if budget <= THINKING_BUDGETS[effort]:
            return effort
    return EFFORTS[-1]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row: the models of ``provider`` that ``match`` accepts have ``facts``."""

    provider: str
    match: Match
    facts: Mapping[str, Any]


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


def _gemini_before(major: int) -> Match:
    def match(model: str) -> bool:
        found = _GEMINI.search(model.lower())
        return found is not None and int(found.group(1)) < major

    return match


def _ids(pattern: str) -> Match:
    compiled = re.compile(pattern)
    return lambda model: compiled.match(model.lower()) is not None


def _rule(provider: str, match: Match, **facts: Any) -> Rule:
    return Rule(provider, match, facts)


# Claude (Anthropic's models overview and API release notes): thinking from 3.7; budgets only
# up to 4.5, adaptive thinking from 4.6, adaptive only (and no sampling parameters) from Opus
# 4.7; temperature and top_p exclusive from Opus 4.1; native structured output
# (output_config.format) generally available from the 4.5 models on.
_CLAUDE = (
    _rule("anthropic", _claude((0, 0)), tool_call=True, reasoning=False, thinking_form="budget"),
    _rule("anthropic", _claude((0, 0)), structured_output=False, max_output_tokens=4096),
    _rule("anthropic", _claude((3, 5)), max_output_tokens=8192),
    _rule("anthropic", _claude((3, 7)), reasoning=True, max_output_tokens=64000),
    _rule("anthropic", _claude((4, 0), "opus"), max_output_tokens=32000),
    _rule("anthropic", _claude((4, 1)), one_sampler=True),
    _rule("anthropic", _claude((4, 5)), structured_output=True, max_output_tokens=64000),
    _rule("anthropic", _claude((4, 6)), thinking_form="adaptive"),
    _rule("anthropic", _claude((4, 6), "opus"), max_output_tokens=128000),
    _rule(
        "anthropic",
        _claude((4, 7)),
        thinking_form="adaptive_only",
        temperature=False,
        thinking_display="summarized",
    ),
)

# Gemini: function calling on every text model; the image, speech and embedding models have none.
_GEMINI_TOOLS = (
    _rule("gemini", _ids(r"gemini-\d"), tool_call=True),
    _rule("gemini", _ids(r"(gemini-embedding|.*-(image|tts)\b)"), tool_call=False),
)

# Gemini before 3 takes thinking budgets, not levels (400 "thinking_level is not supported by
# this model"), and answers a JSON response format beside function declarations with 400
# ("Function calling with a response mime type: 'application/json' is unsupported").
_GEMINI_RULES = (
    _rule("gemini", _gemini_before(3), thinking_form="budget", output_with_tools=False),
)

# OpenAI: the reasoning models take no sampling parameters (400 "Unsupported value:
# 'temperature' does not support 0.2 with this model"); o1-mini and o1-preview have no tools
# and no response_format; json_schema response formats start with gpt-4o-2024-08-06. The
# GPT-3.5 and GPT-4 families (4o and 4.1 included) do not reason.
_OPENAI = (
    _rule("openai", _ids(r"(gpt-4|gpt-5|o\d)"), tool_call=True),
    _rule("openai", _ids(r"(gpt-3\.5|gpt-4)"), reasoning=False),
    _rule("openai", _ids(r"(o\d|gpt-5)"), reasoning=True, temperature=False),
    _rule("openai", _ids(r"gpt-5[\d.]*-chat"), reasoning=False, temperature=True),
    _rule("openai", _ids(r"(o\d|gpt-4o|gpt-4\.1|gpt-5)"), structured_output=True),
    _rule("openai", _ids(r"(gpt-3\.5|gpt-4-|gpt-4$|gpt-4o-2024-05-13)"), structured_output=False),
    _rule("openai", _ids(r"o1-(mini|preview)"), tool_call=False, structured_output=False),
)

# Served by the Responses API only (OpenAI's ResponsesOnlyModel list), dated snapshots too:
# ``api="auto"`` sends these there and every other model to Chat Completions.
_RESPONSES_ONLY = (
    _rule(
        "openai",
        _ids(
            r"(o1-pro|o3-pro|o3-deep-research|o4-mini-deep-research|computer-use-preview"
            r"|gpt-5-codex|gpt-5-pro|gpt-5\.5-pro|gpt-5\.1-codex-max|gpt-5\.6-cyber"
            r"|gpt-daybreak-(blue|red)-latest)(-\d{4}-\d{2}-\d{2})?$"
        ),
        responses_only=True,
    ),
)

# DeepSeek's response_format takes only json_object, not a JSON schema.
_OTHERS = (_rule("deepseek", _ids(r"deepseek"), structured_output=False),)

RULES: tuple[Rule, ...] = (
    *_CLAUDE,
    *_GEMINI_TOOLS,
    *_GEMINI_RULES,
    *_OPENAI,
    *_RESPONSES_ONLY,
    *_OTHERS,
)

# Current model ids these rules describe, newest first: what a capability warning suggests
# when no catalogue is installed.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "openai": ("gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4o-mini"),
    "anthropic": ("claude-opus-4-7", "claude-sonnet-4-6", "claude-haiku-4-5"),
    "gemini": ("gemini-3-pro-preview", "gemini-2.5-pro", "gemini-2.5-flash"),
}


@functools.lru_cache(maxsize=512)
def rules_for(provider: str, model: str) -> Mapping[str, Any]:
    """The merged facts of every row that matches (empty when none does), read-only.

    The table is fixed, so each answer is computed once: providers ask on every request.
    """
    facts: dict[str, Any] = {}
    for rule in RULES:
        if rule.provider == provider and rule.match(model):
            facts.update(rule.facts)
    return types.MappingProxyType(facts)
