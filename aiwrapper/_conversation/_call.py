"""A call the model asked for: ``FunctionCall``, and how a notebook shows one.

Plain data on the ground floor of the package: messages, results and the loop all hold
calls, so this module imports nothing of aiwrapper but its JSON text helpers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from .._wire._jsontext import is_json_object, json_writer

__all__ = ["CallStatus", "FunctionCall", "call_heading", "call_markdown"]

# ``json.dumps(separators=(",", ":"), ensure_ascii=False)``, set up once.
_COMPACT = json_writer(allow_nan=True)

CallStatus = Literal["streaming", "pending", "running", "done", "error", "denied", "skipped"]


@dataclass(slots=True, eq=False)
class FunctionCall:
    """One call the model asked for, and what became of it.

    Attributes:
        id: The provider's call id, or a unique one made up when the provider gives none
            (``synthetic_id`` is then True and the id is never sent back on the wire).
        name: The function's name.
        arguments: The parsed arguments (best-effort partial while streaming).
        raw_arguments: The arguments as JSON text, as the model produced them.
        provider: Which provider produced the call.
        status: ``streaming`` while arriving, then ``pending`` (and stays so in manual mode),
            ``running``, and ``done``, ``error``, ``denied``, or ``skipped`` (a call repeated
            with the same arguments, answered without running it).
        result: The function's return value once it ran.
        error: The error message sent to the model when the call failed or was denied.
    """

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str = ""
    provider: str | None = None
    status: CallStatus = "pending"
    result: Any = None
    error: str | None = None
    synthetic_id: bool = False
    # ``raw_arguments`` as last found to be a JSON object (by the assembler, which parsed it,
    # or here): every request replays each call of the conversation, and a long one would
    # otherwise parse every call's arguments each time.
    _checked_raw: str | None = field(default=None, init=False, repr=False)

    def __repr__(self) -> str:
        return (
            f"FunctionCall(id={self.id!r}, name={self.name!r}, "
            f"arguments={self.arguments!r}, status={self.status!r})"
        )

    def _repr_markdown_(self) -> str:
        """What a notebook shows for a bare call: status, name, arguments, result or error."""
        return call_markdown(self)

    def arguments_json(self) -> str:
        """The arguments as compact JSON text, ready to replay to a provider.

        The model's own text when it is a JSON object; otherwise (arguments cut off at the
        token limit, malformed, or holding NaN) the parsed ``arguments``, which are then
        ``{}``: servers parse replayed arguments and refuse the request if they cannot.
        """
        raw = self.raw_arguments
        if raw and (raw is self._checked_raw or is_json_object(raw)):
            self._checked_raw = raw
            return raw
        return _COMPACT(self.arguments)


_ICONS = {
    "streaming": "…",
    "pending": "…",
    "running": "⏳",
    "done": "✓",
    "error": "✗",
    "denied": "⊘",
    "skipped": "↷",
}


def call_heading(call: FunctionCall) -> str:
    """A call's status icon, name and arguments as a Markdown line."""
    return f"{_ICONS.get(call.status, '?')} `{call.name}({call.raw_arguments or call.arguments})`"


def call_markdown(call: FunctionCall) -> str:
    """One call as Markdown: status icon, name and arguments, then its result or error."""
    return f"{call_heading(call)} → {_outcome(call)}"


def _outcome(call: FunctionCall) -> str:
    if call.error is not None:
        return call.error
    if call.status in ("done", "skipped"):
        return json.dumps(call.result, ensure_ascii=False, default=repr)
    return call.status
