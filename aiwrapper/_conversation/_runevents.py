"""The public events of a run, as ``Lang.stream`` yields them and ``on_event`` receives them.

Each event is a small record of one change, carrying only its own payload (a text delta, an
argument fragment, the call that changed) and ``result``, the run's ``LangResult`` so far.
Printing a streamed answer is ``if isinstance(event, TextDelta): print(event.text, end="")``.
The records are built by the loop (``_watch.py`` turns the providers' neutral stream events of
``_events.py`` into these); they are plain data and never mutated after they are made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ._logprobs import TokenLogprob
from ._result import FunctionCall, LangResult, RequestUsage

__all__ = [
    "CallArgumentsDelta",
    "CallFinished",
    "CallReady",
    "CallStarted",
    "LogprobsDelta",
    "RunEvent",
    "RunFinished",
    "TextDelta",
    "ThinkingDelta",
    "TurnFinished",
    "TurnStarted",
]


@dataclass(slots=True)
class TurnStarted:
    """A model request begins; ``iteration`` counts requests of the run from 1."""

    iteration: int
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class TextDelta:
    """A piece of answer text of the turn being streamed."""

    text: str
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class LogprobsDelta:
    """Log probabilities of answer tokens just streamed (after their ``TextDelta``), when the
    run asked for them (``logprobs=True``)."""

    tokens: list[TokenLogprob]
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class ThinkingDelta:
    """A piece of the model's visible reasoning."""

    text: str
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class CallStarted:
    """The model began a call; its arguments follow as ``CallArgumentsDelta`` events."""

    call: FunctionCall
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class CallArgumentsDelta:
    """A fragment of a call's JSON arguments, in order; joined they are ``raw_arguments``.

    ``call.arguments`` is complete at ``CallReady``. While the call streams it holds the
    parse so far only when ``on_result`` is set too (its snapshots show partial calls).
    """

    call: FunctionCall
    fragment: str
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class CallReady:
    """A call's arguments are complete (``call.arguments`` is final, not yet checked)."""

    call: FunctionCall
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class CallFinished:
    """A call was answered: ``call.status`` is ``done``, ``error``, ``denied`` or ``skipped``.

    ``call.result`` holds the function's return value when it ran, ``call.error`` the error
    message sent to the model otherwise.
    """

    call: FunctionCall
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class TurnFinished:
    """A model request ended, with its finish reason and its own token counts."""

    iteration: int
    finish_reason: str | None
    usage: RequestUsage
    result: LangResult = field(repr=False)


@dataclass(slots=True)
class RunFinished:
    """The run is over; ``result`` is final. The last event of a run that succeeded."""

    result: LangResult


RunEvent = Union[
    TurnStarted,
    TextDelta,
    LogprobsDelta,
    ThinkingDelta,
    CallStarted,
    CallArgumentsDelta,
    CallReady,
    CallFinished,
    TurnFinished,
    RunFinished,
]
"""Any event of a run."""
