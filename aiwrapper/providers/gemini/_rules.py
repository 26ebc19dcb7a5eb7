"""What aiwrapper knows of each Gemini model: its rows of the per-model rules.

The registry gathers these rows with every other package's for ``aiwrapper.models`` (see
``aiwrapper._knowledge._modelrules`` for how rows are written and merged).
"""

from __future__ import annotations

import re

from ..._knowledge._modelrules import Match, Rule, ids, rule, rule_table
from ._name import PROVIDER

__all__ = ["CATALOGUE_IDS", "EXAMPLE_MODELS", "MODEL_RULES", "rules_for"]

_MAJOR = re.compile(r"gemini-(\d+)")


def _before(major: int) -> Match:
    def match(model: str) -> bool:
        found = _MAJOR.search(model.lower())
        return found is not None and int(found.group(1)) < major

    return match


def _from(major: int) -> Match:
    def match(model: str) -> bool:
        found = _MAJOR.search(model.lower())
        return found is not None and int(found.group(1)) >= major

    return match


MODEL_RULES: tuple[Rule, ...] = (
    # Function calling on every text model; the image, speech and embedding models have none.
    rule(PROVIDER, ids(r"gemini-\d"), tool_call=True),
    rule(PROVIDER, ids(r"(gemini-embedding|.*-(image|tts)\b)"), tool_call=False),
    # Before 3, thinking budgets, not levels (400 "thinking_level is not supported by this
    # model"), and a JSON response format beside function declarations is answered with 400
    # ("Function calling with a response mime type: 'application/json' is unsupported").
    rule(PROVIDER, _before(3), thinking_form="budget", output_with_tools=False),
    # Images and documents inside functionResponse.parts ("multimodal function responses") are
    # documented for Gemini 3 and later; Gemini 2.5 answers 400 "Multimodal function responses
    # are not supported for this model". An id that names no version (an alias) is not
    # assumed to take them: its results' media go as parts after the responses, which every
    # model reads.
    rule(PROVIDER, _from(3), media_in_results=True),
)

# Current models, newest first: what a capability warning suggests without a catalogue.
EXAMPLE_MODELS = {PROVIDER: ("gemini-3-pro-preview", "gemini-2.5-pro", "gemini-2.5-flash")}
# The models.dev catalogue lists these models under Google's name.
CATALOGUE_IDS = {PROVIDER: "google"}

# The merged facts of one of these providers' models (``rules_for(name, model)``).
rules_for = rule_table(MODEL_RULES)
