"""The seam between a run and what it does to the world: each model request and each tool call.

A run does both directly. Given ``Steps``, it does them through it instead: a durable engine
(``aiwrapper.durable``) wraps each one in a step that checkpoints what it produced, and on
recovery hands back a finished step's checkpoint instead of doing it again. The loop knows
nothing of any engine; it only learns, from what comes back, whether a step was replayed, so
that a replayed one tells the watchers nothing.

A ``ToolOutcome`` (what a call produced) is defined here, since it is what a tool step returns.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .._conversation._assembler import Assembler
from .._conversation._messages import MediaPart, TextPart
from .._conversation._result import FunctionCall

__all__ = ["Steps", "ToolOutcome"]


@dataclass(slots=True)
class ToolOutcome:
    """What a call produced, ready to become a tool-result message.

    ``deferred`` marks a call ``approve`` answered with ``DEFER``: neither run nor answered,
    it waits for a decision. ``replayed`` is set on an outcome a ``Steps`` gave back from its
    checkpoint: the call did not run again, and its watchers are not told of it again.
    """

    content: str
    is_error: bool = False
    error_type: str | None = None
    parts: tuple[TextPart | MediaPart, ...] | None = None  # when more than text
    deferred: bool = False
    replayed: bool = False


class Steps(Protocol):
    """How a run sends its model requests and runs its tool calls (see the module docstring)."""

    def request(self, receive: Callable[[], Awaitable[Assembler]]) -> Awaitable[Assembler]:
        """Send one model request: ``receive`` sends it, folds the answer and returns the turn.

        Returns that turn, or, on a replay, an ``Assembler`` rebuilt from the checkpoint (its
        ``message``, ``usage``, ``finish_reason``, ``truncated``, ``model`` and ``started``).
        """
        ...

    def plan(self, calls: Sequence[FunctionCall]) -> None:
        """The calls of a turn that are about to run, in call order (before any of them runs).

        They may then run concurrently and finish in any order: an engine that numbers its
        steps numbers them here.
        """
        ...

    def call(
        self, call: FunctionCall, run: Callable[[], Awaitable[ToolOutcome]]
    ) -> Awaitable[ToolOutcome]:
        """Run one planned ``call``: ``run`` runs it, failures included, and returns its outcome.

        On a replay, returns the checkpointed outcome (``replayed`` set) and restores the
        call's ``status``, ``result``, ``error`` and ``arguments`` from it.
        """
        ...
