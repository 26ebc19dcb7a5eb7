"""What each Claude model generation accepts for thinking and sampling, as data.

Anthropic changed the thinking request shape across generations (protocols.md 2.6): Claude 3.7
and the 4.x models up to 4.5 take ``{"type": "enabled", "budget_tokens": N}``; the 4.6 models add
``{"type": "adaptive"}`` with ``output_config.effort`` (budgets still accepted, deprecated); Opus
4.7 and later accept only the adaptive form, reject ``temperature``/``top_p``/``top_k`` and hide
thinking text unless ``display: "summarized"`` is asked for. This module owns that table, the
lookup from a model id, and the request fields that depend on it and on thinking (thinking,
sampling, ``tool_choice``); the rest of the request, and all decoding, is ``anthropic.py``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .. import errors
from .base import tool_choice

if TYPE_CHECKING:
    from ..options import LangOptions

__all__ = [
    "BUDGETS",
    "MIN_BUDGET",
    "ModelFamily",
    "budget_to_effort",
    "encode_sampling",
    "encode_thinking",
    "encode_tool_choice",
    "family_for",
]

ThinkingForm = Literal["budget", "adaptive", "adaptive_only"]


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """The request shapes one Claude generation accepts.

    Attributes:
        thinking: ``"budget"`` (enabled + budget_tokens only), ``"adaptive"`` (both forms;
            efforts and ``True`` use adaptive, ints a budget) or ``"adaptive_only"``.
        sampling: False when the model rejects ``temperature`` and ``top_p`` outright.
        display: The ``thinking.display`` value to send, when the model's default hides text.
    """

    thinking: ThinkingForm
    sampling: bool = True
    display: str | None = None


BUDGET = ModelFamily("budget")
ADAPTIVE = ModelFamily("adaptive")
ADAPTIVE_ONLY = ModelFamily("adaptive_only", sampling=False, display="summarized")

# Oldest version first: a model uses the last generation whose version it reaches.
_GENERATIONS: tuple[tuple[tuple[int, int], ModelFamily], ...] = (
    ((0, 0), BUDGET),
    ((4, 6), ADAPTIVE),
    ((4, 7), ADAPTIVE_ONLY),
)

# Token budgets for an effort on budget-only models, and the headroom an adaptive request
# gets on top of the default max_tokens (thinking tokens count toward max_tokens).
BUDGETS: dict[str, int] = {"low": 2048, "medium": 8192, "high": 24576}
MIN_BUDGET = 1024  # the API's floor for budget_tokens

# "claude-opus-4-7", "claude-sonnet-4-5-20250929", "anthropic.claude-haiku-4-5-v1:0",
# "claude-opus-4-20250514" (4.0: the 8-digit date is not a minor version).
_NEW_STYLE = re.compile(r"claude-(?:opus|sonnet|haiku)-(\d+)(?:-(\d{1,2})(?!\d))?")
# "claude-3-7-sonnet-20250219", "claude-3-5-haiku-latest", "claude-3-opus-20240229".
_OLD_STYLE = re.compile(r"claude-(\d)(?:-(\d))?-(?:opus|sonnet|haiku)")


def _version(model: str) -> tuple[int, int] | None:
    name = model.lower().replace(".", "-")  # OpenRouter spells "claude-opus-4.6"
    match = _NEW_STYLE.search(name) or _OLD_STYLE.search(name)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def family_for(model: str) -> ModelFamily:
    """The generation of ``model``; unknown ids get the permissive 4.6 shape.

    An id we cannot read (a proxy alias, a fine-tune) is sent what the 4.6 models accept: the
    adaptive form for ``True`` and efforts, a budget for ints, sampling left as given, so the
    API itself decides.
    """
    version = _version(model)
    if version is None:
        return ADAPTIVE
    family = BUDGET
    for since, candidate in _GENERATIONS:
        if version >= since:
            family = candidate
    return family


def budget_to_effort(budget: int) -> str:
    """The effort closest to a token budget, for models that no longer take budgets."""
    if budget <= BUDGETS["low"]:
        return "low"
    if budget <= BUDGETS["medium"]:
        return "medium"
    return "high"


def encode_thinking(value: object, family: ModelFamily) -> tuple[dict[str, Any], int]:
    """The body fields for the ``thinking`` option, and the tokens to reserve for it.

    ``True`` is the model's default thinking (a medium budget on budget-only models), an int a
    token budget (the nearest effort on adaptive-only models), an effort a budget from
    ``BUDGETS`` or ``output_config.effort``. The reserve is added to a default ``max_tokens``.
    """
    if value is None or value is False or value == 0:
        return {}, 0  # omit the field: some models reject an explicit {"type": "disabled"}
    if value is True:
        effort = None if family.thinking != "budget" else "medium"
    elif isinstance(value, str) and value in BUDGETS:
        effort = value
    elif isinstance(value, int) and not isinstance(value, bool):
        return _budget_thinking(value, family)
    else:
        raise errors.ConfigError(
            f"thinking must be True, a token budget or 'low'/'medium'/'high', not {value!r}"
        )
    if family.thinking == "budget":
        return _budget_fields(BUDGETS[effort or "medium"], family), BUDGETS[effort or "medium"]
    return _adaptive_fields(effort, family), BUDGETS[effort or "high"]


def _budget_thinking(budget: int, family: ModelFamily) -> tuple[dict[str, Any], int]:
    if budget < MIN_BUDGET:
        raise errors.ConfigError(f"a thinking budget must be at least {MIN_BUDGET} tokens")
    if family.thinking == "adaptive_only":
        # Opus 4.7+ answers a budget with 400; the nearest effort keeps the user's intent.
        return _adaptive_fields(budget_to_effort(budget), family), budget
    return _budget_fields(budget, family), budget


def _budget_fields(budget: int, family: ModelFamily) -> dict[str, Any]:
    thinking: dict[str, Any] = {"type": "enabled", "budget_tokens": budget}
    if family.display:
        thinking["display"] = family.display
    return {"thinking": thinking}


def _adaptive_fields(effort: str | None, family: ModelFamily) -> dict[str, Any]:
    thinking: dict[str, Any] = {"type": "adaptive"}
    if family.display:
        thinking["display"] = family.display  # Opus 4.7+ default to "omitted" (empty text)
    fields: dict[str, Any] = {"thinking": thinking}
    if effort is not None:
        fields["output_config"] = {"effort": effort}
    return fields


def encode_sampling(
    options: LangOptions, family: ModelFamily, model: str, *, thinking_on: bool
) -> dict[str, Any]:
    """``temperature``, ``top_p`` and ``stop_sequences``, checked against the model and thinking."""
    fields: dict[str, Any] = {}
    if options.temperature is not None:
        fields["temperature"] = options.temperature
    if options.top_p is not None:
        fields["top_p"] = options.top_p
    if fields and not family.sampling:
        raise errors.ConfigError(f"{model} does not accept temperature or top_p; leave them unset")
    # Extended thinking: temperature may only be 1 and top_p only within [0.95, 1].
    if thinking_on and fields.get("temperature", 1) != 1:
        raise errors.ConfigError("Anthropic thinking requires temperature unset or 1")
    if thinking_on and not 0.95 <= fields.get("top_p", 1) <= 1:
        raise errors.ConfigError("Anthropic thinking requires top_p between 0.95 and 1")
    if options.stop is not None:
        fields["stop_sequences"] = (
            [options.stop] if isinstance(options.stop, str) else list(options.stop)
        )
    return fields


def encode_tool_choice(options: LangOptions, *, thinking_on: bool) -> dict[str, Any] | None:
    """``tool_choice`` from ``function_call`` and ``parallel_tool_calls`` (None: send none)."""
    choice = tool_choice(options.function_call)
    if thinking_on and choice is not None and choice.mode in ("required", "named"):
        # protocols.md 2.3: "Thinking may not be enabled when tool_choice forces tool use".
        raise errors.ConfigError(
            "Anthropic does not allow forcing a tool call (function_call="
            f"{options.function_call!r}) while thinking is on; use 'auto' or turn thinking off"
        )
    if choice is None and options.parallel_tool_calls is not False:
        return None
    mode = choice.mode if choice is not None else "auto"
    if mode == "none":
        return {"type": "none"}
    wire: dict[str, Any] = {"type": {"auto": "auto", "required": "any", "named": "tool"}[mode]}
    if mode == "named" and choice is not None:
        wire["name"] = choice.name
    if options.parallel_tool_calls is False:
        wire["disable_parallel_tool_use"] = True
    return wire
