"""Approval that waits: the ``DEFER`` answer, the calls left pending, and the decisions on them.

``approve`` may answer ``DEFER`` instead of deciding: the call is then neither run nor
answered, the other calls of its turn run, and the run stops with those calls pending (the
loop's part). A conversation whose last assistant turn has calls without results is one to
resume; this module finds those calls (``pending_calls``) and checks the decisions given for
them (``checked_decisions``) before anything runs. Running the decided calls is the
executor's.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from .._conversation._messages import LangMessages
from .._conversation._result import FunctionCall
from .._errors import ConfigError

__all__ = [
    "DEFER",
    "Decision",
    "Defer",
    "checked_decisions",
    "decision_map",
    "pending_calls",
    "saved",
]


class Defer(enum.Enum):
    """The type of ``DEFER``: one value, so that type checkers can tell it from a decision."""

    DEFER = "DEFER"

    def __repr__(self) -> str:
        return "aiwrapper.DEFER"

    __str__ = __repr__


DEFER = Defer.DEFER
"""What ``approve`` returns to decide later: the run stops with the call in
``result.pending``, and ``Lang.resume`` continues it with the decision."""

Decision = Union[bool, str]  # True runs the call; False or a reason denies it
DeferType = Literal[Defer.DEFER]


def saved(given: object) -> Any:
    """A conversation to resume: JSON text and ``to_jsonable`` data are read, the rest is
    left for ``opening`` (a list of messages, or the mistake it names)."""
    if isinstance(given, (str, bytes, bytearray)):
        return LangMessages.from_json(given)
    if isinstance(given, Mapping):
        return LangMessages.from_jsonable(given)
    return given


def pending_calls(messages: LangMessages) -> list[FunctionCall]:
    """The calls of the last assistant turn that have no result yet, in call order.

    Raises:
        ConfigError: Something other than tool results follows a turn with calls pending
            (a user message added after it, say): their results would land after it.
    """
    turns = [i for i, m in enumerate(messages) if m.role == "assistant"]
    if not turns:
        return []
    after = messages[turns[-1] + 1 :]
    answered = {m.tool_call_id for m in after if m.role == "tool"}
    pending = [c for c in messages[turns[-1]].tool_calls if c.id not in answered]
    if pending and any(m.role != "tool" for m in after):
        raise ConfigError(
            "a message other than a tool result follows the turn whose calls wait for "
            "decisions: resume the conversation as the run left it (result.messages)"
        )
    return pending


def decision_map(decisions: object) -> Mapping[object, object]:
    """``decisions`` as given to ``resume``, once known to be a mapping.

    Raises:
        ConfigError: It is not one.
    """
    if not isinstance(decisions, Mapping):
        raise ConfigError(
            "decisions must be a dict of call id to True, False or a reason, not "
            f"{type(decisions).__name__}"
        )
    return decisions


def checked_decisions(pending: Sequence[FunctionCall], decisions: object) -> dict[str, Decision]:
    """``decisions`` checked against the pending calls: one for each, and no other.

    Raises:
        ConfigError: Nothing is pending; ``decisions`` is not a mapping; a decision names
            no pending call, is missing for one, or is not True, False or a reason.
    """
    ids = [c.id for c in pending]
    if not ids:
        raise ConfigError(
            "nothing to resume: the conversation has no calls waiting for a decision "
            "(continue it with chat)"
        )
    decisions = decision_map(decisions)
    unknown = [key for key in decisions if key not in ids]
    if unknown:
        shown = ", ".join(f"{key!r:.60}" for key in unknown[:5])
        raise ConfigError(f"decisions name no pending call: {shown}; pending: {ids}")
    missing = [i for i in ids if i not in decisions]
    if missing:
        raise ConfigError(f"no decision for the pending calls {missing}")
    return {i: _checked(i, decisions[i]) for i in ids}


def _checked(call_id: str, decision: object) -> Decision:
    if decision is True or decision is False:
        return decision
    if isinstance(decision, str) and decision.strip():
        return decision
    raise ConfigError(
        f"the decision for call {call_id!r} must be True (run it), False or a reason (deny "
        f"it), not {decision!r:.60}"
    )
