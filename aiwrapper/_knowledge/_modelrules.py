"""Per-model rules: how a row of model facts is written and merged, and the thinking table.

The facts a provider must know about a model to build a request it accepts (which thinking form
it takes, which sampling parameters it refuses, whether it has native structured output) are
rows written in each provider package (``MODEL_RULES``), matched by model id: later rows refine
earlier ones, so a general rule comes first and its exceptions after it. The provider registry
gathers every package's rows and ``merged_facts`` merges the facts of the matching ones. The
same facts overlay the models.dev catalogue in ``aiwrapper.models`` (an id no row matches is
simply unknown, and providers then fall back to their permissive default shapes).

Facts use ``ModelInfo``'s field names (``tool_call``, ``reasoning``, ``structured_output``,
``temperature``, ``max_output_tokens``...) plus a few that only providers read:

* ``thinking_form``: ``"budget"``, ``"adaptive"`` or ``"adaptive_only"`` (which way the model
  takes a thinking request: a token budget, or a level it sizes itself);
* ``one_sampler``: ``temperature`` and ``top_p`` may not be sent together;
* ``thinking_display``: the thinking display to ask for when the default hides the text;
* ``output_with_tools``: False when native structured output cannot be combined with function
  declarations in one request;
* ``responses_only``: a model that only a provider's newer API serves.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DYNAMIC_THINKING",
    "EFFORTS",
    "THINKING_BUDGETS",
    "Match",
    "Rule",
    "ids",
    "merged_facts",
    "rule",
    "rule_table",
    "thinking_budget",
    "thinking_effort",
]

Match = Callable[[str], bool]
"""Whether a row applies to a model id."""

# The one thinking table of every provider: the efforts the ``thinking`` option takes, lightest
# first, and the token budget each stands for. Each provider maps an effort to its wire (a level,
# or this budget) and refuses one its wire has no form for. Every wire uses the same figures, so
# an effort and a budget mean the same thing on each provider: "low" is 1,024 tokens (also the
# smallest budget a budget-only wire accepts), "medium" 8,192 and "high" 24,576, one vendor's
# published mapping of efforts to budgets. "minimal" (512, the highest floor among the models
# that take budgets) is sent only where the wire has that level.
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


def rule(provider: str, match: Match, **facts: Any) -> Rule:
    """A row, its facts given as keywords."""
    return Rule(provider, match, facts)


def ids(pattern: str) -> Match:
    """Matches the model ids that start with ``pattern`` (a regular expression), in any case."""
    compiled = re.compile(pattern)
    return lambda model: compiled.match(model.lower()) is not None


def merged_facts(rules: Iterable[Rule], provider: str, model: str) -> Mapping[str, Any]:
    """The facts of every row of ``provider`` that matches ``model``, later rows winning."""
    facts: dict[str, Any] = {}
    for row in rules:
        if row.provider == provider and row.match(model):
            facts.update(row.facts)
    return types.MappingProxyType(facts)


def rule_table(rules: Iterable[Rule]) -> Callable[[str, str], Mapping[str, Any]]:
    """``rules`` as a lookup of a provider's model's merged facts, each answer computed once.

    The rows never change and providers ask on every request, so answers are kept (a bounded
    number: model ids come from users).
    """
    rows = tuple(rules)

    @functools.lru_cache(maxsize=512)
    def facts(provider: str, model: str) -> Mapping[str, Any]:
        return merged_facts(rows, provider, model)

    return facts
