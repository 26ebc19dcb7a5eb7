"""What aiwrapper knows of OpenAI's models and of the compatible presets' own.

The registry gathers these rows with every other package's for ``aiwrapper.models`` (see
``aiwrapper._knowledge._modelrules`` for how rows are written and
merged). The Responses API reads the
same rows: OpenAI's models are the same whichever of its APIs serves them.
"""

from __future__ import annotations

from ..._knowledge._modelrules import Rule, ids, rule, rule_table
from ._profiles import OPENAI_PROFILE

__all__ = ["CATALOGUE_IDS", "EXAMPLE_MODELS", "MODEL_RULES", "rules_for"]

_NAME = OPENAI_PROFILE.name

# The reasoning models take no sampling parameters (400 "Unsupported value: 'temperature' does
# not support 0.2 with this model"); o1-mini and o1-preview have no tools and no
# response_format; json_schema response formats start with gpt-4o-2024-08-06. The GPT-3.5 and
# GPT-4 families (4o and 4.1 included) do not reason.
_CHAT = (
    rule(_NAME, ids(r"(gpt-4|gpt-5|o\d)"), tool_call=True),
    rule(_NAME, ids(r"(gpt-3\.5|gpt-4)"), reasoning=False),
    rule(_NAME, ids(r"(o\d|gpt-5)"), reasoning=True, temperature=False),
    rule(_NAME, ids(r"gpt-5[\d.]*-chat"), reasoning=False, temperature=True),
    rule(_NAME, ids(r"(o\d|gpt-4o|gpt-4\.1|gpt-5)"), structured_output=True),
    rule(_NAME, ids(r"(gpt-3\.5|gpt-4-|gpt-4$|gpt-4o-2024-05-13)"), structured_output=False),
    rule(_NAME, ids(r"o1-(mini|preview)"), tool_call=False, structured_output=False),
)

# Served by the Responses API only (the ResponsesOnlyModel list), dated snapshots too:
# ``api="auto"`` sends these there and every other model to Chat Completions.
_RESPONSES_ONLY = rule(
    _NAME,
    ids(
        r"(o1-pro|o3-pro|o3-deep-research|o4-mini-deep-research|computer-use-preview"
        r"|gpt-5-codex|gpt-5-pro|gpt-5\.5-pro|gpt-5\.1-codex-max|gpt-5\.6-cyber"
        r"|gpt-daybreak-(blue|red)-latest)(-\d{4}-\d{2}-\d{2})?$"
    ),
    responses_only=True,
)

MODEL_RULES: tuple[Rule, ...] = (
    *_CHAT,
    _RESPONSES_ONLY,
    # DeepSeek's response_format takes only json_object, not a JSON schema.
    rule("deepseek", ids(r"deepseek"), structured_output=False),
)

# Current models, newest first: what a capability warning suggests without a catalogue.
EXAMPLE_MODELS = {_NAME: ("gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4o-mini")}
# Presets the models.dev catalogue lists under another name.
CATALOGUE_IDS = {"together": "togetherai"}

# The merged facts of one of these providers' models (``rules_for(name, model)``).
rules_for = rule_table(MODEL_RULES)
