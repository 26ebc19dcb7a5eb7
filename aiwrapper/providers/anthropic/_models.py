"""What each Claude model generation accepts for thinking and sampling, as data.

Anthropic changed the thinking request shape across generations: Claude 3.7
and the 4.x models up to 4.5 take ``{"type": "enabled", "budget_tokens": N}``; the 4.6 models add
``{"type": "adaptive"}`` with ``output_config.effort`` (budgets still accepted, deprecated); Opus
4.7 and later accept only the adaptive form, reject ``temperature``/``top_p``/``top_k`` and hide
thinking text unless ``display: "summarized"`` is asked for. From Opus 4.1 on, ``temperature``
and ``top_p`` may no longer be sent together (400 "`temperature` and `top_p` cannot both be
specified for this model"; confirmed by public reports against Sonnet/Haiku 4.5, Opus 4.1 and
Sonnet 4.6, e.g. BerriAI/litellm#15097, cloud-apim/otoroshi-llm-extension#140, and the API
release notes). Those facts are rows of the shared model rules
(``aiwrapper._knowledge._modelrules``);
this module turns them into a ``ModelFamily`` and owns the request fields that depend on it
and on thinking (thinking, sampling, ``tool_choice``), and the check that a tool loop may go on
with thinking on; the rest of the request is ``_provider.py``'s and ``_encode.py``'s, and
all decoding ``_decode.py``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ... import _errors as errors
from ..._knowledge._modelrules import EFFORTS, thinking_budget, thinking_effort
from ..._run._contract import ToolChoice
from .._base import stop_sequences
from ._name import NAME
from ._rules import rules_for

if TYPE_CHECKING:
    from ..._run._options import LangOptions

__all__ = [
    "MIN_BUDGET",
    "ModelFamily",
    "check_budget_fits",
    "check_thinking_turn",
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
        one_sampler: True when ``temperature`` and ``top_p`` may not be sent together.
    """

    thinking: ThinkingForm
    sampling: bool = True
    display: str | None = None
    one_sampler: bool = False


# An id we cannot read: the most permissive shape, so the API itself decides.
UNKNOWN = ModelFamily("adaptive")

# Token budgets for an effort on budget-only models, and the headroom an adaptive request gets
# on top of the default max_tokens (thinking tokens count toward max_tokens), come from the
# thinking table shared by every provider (``thinking_budget``; "low" is the API's floor).
MIN_BUDGET = 1024  # the API's floor for budget_tokens


@functools.lru_cache(maxsize=64)  # the rules never change: one family per model id
def family_for(model: str) -> ModelFamily:
    """The generation of ``model``, from the model rules; unknown ids get the 4.6 shape.

    An id we cannot read (a proxy alias, a fine-tune) is sent what the 4.6 models accept: the
    adaptive form for ``True`` and efforts, a budget for ints, sampling left as given, so the
    API itself decides.
    """
    facts = rules_for(NAME, model)
    if not facts:
        return UNKNOWN
    return ModelFamily(
        facts.get("thinking_form", "adaptive"),
        sampling=facts.get("temperature") is not False,
        display=facts.get("thinking_display"),
        one_sampler=bool(facts.get("one_sampler")),
    )


def encode_thinking(
    value: object, family: ModelFamily, *, max_tokens: int | None = None
) -> tuple[dict[str, Any], int]:
    """The body fields for the ``thinking`` option, and the tokens to reserve for it.

    ``True`` is the model's default thinking (a medium budget on budget-only models), an int a
    token budget (the effort it stands for on adaptive-only models), an effort a budget from
    the thinking table or ``output_config.effort``. The reserve is added to a default
    ``max_tokens``.
    A budget this SDK picked (for ``True`` or an effort) is fitted into an explicit
    ``max_tokens``: at most half of it, so the answer keeps room (thinking tokens count toward
    ``max_tokens``); a budget the user gave is sent as given and checked by the caller.
    """
    if value is None or value is False or value == 0:
        return {}, 0  # omit the field: some models reject an explicit {"type": "disabled"}
    if value is True:
        effort = None if family.thinking != "budget" else "medium"
    elif isinstance(value, str) and value in EFFORTS:
        effort = value
    elif isinstance(value, int) and not isinstance(value, bool):
        return _budget_thinking(value, family)
    else:
        raise errors.ConfigError(
            f"thinking must be True, a token budget or 'low'/'medium'/'high', not {value!r}"
        )
    if family.thinking == "budget":
        budget = _fit(thinking_budget(effort or "medium"), max_tokens)
        return _budget_fields(budget, family), budget
    return _adaptive_fields(effort, family), thinking_budget(effort or "high")


def _fit(budget: int, max_tokens: int | None) -> int:
    if max_tokens is None:
        return budget
    if max_tokens <= MIN_BUDGET:
        raise errors.ConfigError(
            f"max_tokens ({max_tokens}) leaves no room for Anthropic thinking: budgets start "
            f"at {MIN_BUDGET} tokens and count toward max_tokens; raise max_tokens or turn "
            "thinking off"
        )
    return max(MIN_BUDGET, min(budget, max_tokens // 2))


def _budget_thinking(budget: int, family: ModelFamily) -> tuple[dict[str, Any], int]:
    if budget < MIN_BUDGET:
        raise errors.ConfigError(f"a thinking budget must be at least {MIN_BUDGET} tokens")
    if family.thinking == "adaptive_only":
        # Opus 4.7+ answers a budget with 400; the nearest effort keeps the user's intent.
        return _adaptive_fields(thinking_effort(budget), family), budget
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
    if len(fields) == 2 and family.one_sampler:
        raise errors.ConfigError(f"{model} does not accept temperature and top_p together; set one")
    # Extended thinking: temperature may only be 1 and top_p only within [0.95, 1].
    if thinking_on and fields.get("temperature", 1) != 1:
        raise errors.ConfigError("Anthropic thinking requires temperature unset or 1")
    if thinking_on and not 0.95 <= fields.get("top_p", 1) <= 1:
        raise errors.ConfigError("Anthropic thinking requires top_p between 0.95 and 1")
    if options.stop is not None:
        fields["stop_sequences"] = stop_sequences(options.stop)
    return fields


def encode_tool_choice(
    choice: ToolChoice | None, options: LangOptions, names: Sequence[str], *, thinking_on: bool
) -> dict[str, Any] | None:
    """``tool_choice`` from the request's normalized ``choice`` and ``parallel_tool_calls``
    (None: send none).

    ``names`` are the tools sent (a forced or named choice among them is checked before the
    run, with the other option combinations).
    """
    forced = choice is not None and choice.mode in ("required", "named")
    if thinking_on and forced:
        # Anthropic refuses tool_choice any/tool while thinking is on (400 "Thinking may not be
        # enabled when tool_choice forces tool use").
        raise errors.ConfigError(
            "Anthropic does not allow forcing a tool call (function_call="
            f"{options.function_call!r}) while thinking is on; use 'auto' or turn thinking off"
        )
    if not names or (choice is None and options.parallel_tool_calls is not False):
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


def check_thinking_turn(messages: Sequence[dict[str, Any]], own_ids: set[str]) -> None:
    """Refuse, before the request, a tool loop the API will reject while thinking is on.

    Anthropic answers 400 "Expected `thinking` or `redacted_thinking`, but found
    `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a
    thinking block" (reported in many trackers, e.g. OpenRouterTeam/ai-sdk-provider#162): when
    the request ends with tool results, the assistant turn that made the calls must open with
    a thinking block. Calls made by another provider (or built by hand) can never have one.
    Only those are refused here; a turn Claude made itself is left to the API to judge.
    """
    if not messages or not _has_block(messages[-1], "tool_result"):
        return
    start = max(
        (
            i
            for i, m in enumerate(messages)
            if m["role"] == "user" and not _has_block(m, "tool_result")
        ),
        default=-1,
    )
    turn = [m for m in messages[start + 1 :] if m["role"] == "assistant"]
    if not turn or turn[0]["content"][0].get("type") in ("thinking", "redacted_thinking"):
        return
    ids = {b.get("id") for m in turn for b in m["content"] if b.get("type") == "tool_use"}
    if ids and not ids & own_ids:
        raise errors.ConfigError(
            "thinking is on, but the tool calls awaiting their results were made without "
            "Anthropic thinking (by another provider, or built by hand); Anthropic rejects that "
            "while thinking is on. Send this request with thinking=False, or finish the tool "
            "loop first and turn thinking on for the next user message"
        )


def _has_block(message: dict[str, Any], kind: str) -> bool:
    return message["role"] == "user" and any(b.get("type") == kind for b in message["content"])


def check_budget_fits(
    max_tokens: int, thinking: Mapping[str, Any], *, interleaved: bool = False
) -> None:
    """Refuse a thinking budget ``max_tokens`` cannot hold: thinking counts toward it (with
    interleaved thinking, the budget may exceed it).

    Raises:
        ConfigError: The budget is ``max_tokens`` or more.
    """
    budget = thinking.get("thinking", {}).get("budget_tokens")
    if budget is not None and max_tokens <= budget and not interleaved:
        raise errors.ConfigError(
            f"max_tokens ({max_tokens}) must be larger than the thinking budget "
            f"({budget}): Anthropic counts thinking tokens toward max_tokens"
        )
