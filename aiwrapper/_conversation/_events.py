"""Neutral stream events: what every provider decoder turns its wire format into.

A decoder (``providers/<name>.py``) emits these small tagged records; one assembler
(``_assembler.py``) folds them into the assistant message, the same way for every provider and
for streamed and whole responses alike. Events carry no I/O and no provider-specific JSON keys,
except inside the opaque ``ProviderState`` payloads, which only the provider that made them reads.
These are internal: the events users see (``aiwrapper.TextDelta``...) are in ``_runevents.py``.

Events are built for every token, so they are plain slotted dataclasses: a frozen one costs
about three times as much to construct. Nothing mutates an event once it is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from ._logprobs import TokenLogprob
from ._media import Document, Image
from ._messages import JSONValue, ProviderState

__all__ = [
    "Event",
    "FinishEvent",
    "FinishReason",
    "LogprobsEvent",
    "MediaEvent",
    "ModelEvent",
    "OpaquePartEvent",
    "PartStateEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallStart",
    "UsageEvent",
]

# Why a turn ended. "pause" is a turn that is not over: the server stopped a long turn of its
# own (a server-side tool loop) and goes on when sent the conversation as it now stands.
FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "error", "pause"]


@dataclass(slots=True)
class TextDelta:
    """A piece of answer text. ``new_part`` starts a new text part instead of appending."""

    text: str
    new_part: bool = False


@dataclass(slots=True)
class ThinkingDelta:
    """A piece of visible reasoning. ``new_part`` starts a new thinking part."""

    text: str
    new_part: bool = False


@dataclass(slots=True)
class LogprobsEvent:
    """Log probabilities of answer tokens, in order (the text they belong to came before)."""

    tokens: list[TokenLogprob]


@dataclass(slots=True)
class PartStateEvent:
    """Opaque provider state (a signature, say) for a part of the turn.

    It goes to the tool call with ``index`` when one is given, otherwise to the most recent
    part. With ``merge`` the payload's keys are added to the part's existing state of the same
    provider; otherwise the state replaces what the part had.
    """

    state: ProviderState
    index: int | None = None
    merge: bool = True


@dataclass(slots=True)
class OpaquePartEvent:
    """A whole part the SDK does not interpret (redacted thinking, server-tool blocks).

    ``kind`` says how it should be treated: ``"thinking"`` parts are reasoning (dropped when
    the conversation moves to another provider), ``"raw"`` parts are anything else.
    ``problem`` says why the part could not be read whole; the decoder reports it here
    instead of raising, so the rest of the turn still comes out.
    """

    state: ProviderState
    kind: Literal["thinking", "raw"] = "raw"
    problem: str | None = None


@dataclass(slots=True)
class MediaEvent:
    """A whole image or document the model returned (a generated image, say).

    ``state`` is provider state that goes back with it (a signature), as on any other part.
    """

    media: Image | Document
    state: ProviderState | None = None


@dataclass(slots=True)
class ToolCallStart:
    """The model starts a call. ``index`` keys later deltas; ``id`` is None when not given."""

    index: int
    id: str | None
    name: str


@dataclass(slots=True)
class ToolCallDelta:
    """A fragment of a call's JSON arguments, to be concatenated in order."""

    index: int
    arguments: str


@dataclass(slots=True)
class ToolCallEnd:
    """A call is complete. ``arguments`` is given when the wire carried them as an object."""

    index: int
    arguments: dict[str, JSONValue] | None = None


@dataclass(slots=True)
class UsageEvent:
    """Token counts of this request so far.

    A later event replaces the counts it reports; a count left ``None`` keeps its earlier
    value (wires that report input and output tokens in different events).
    """

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    raw: dict[str, JSONValue] = field(default_factory=dict)


@dataclass(slots=True)
class ModelEvent:
    """The model the provider says is answering (a dated version of the one asked, say).

    ``response_id`` is the provider's id of the response, for telemetry; a label, not part of
    what the model said, so events compare equal without it.
    """

    model: str
    response_id: str | None = field(default=None, compare=False)


@dataclass(slots=True)
class FinishEvent:
    """The turn ended. ``raw`` is the provider's own reason, kept for the user."""

    reason: FinishReason
    raw: str | None = None


Event = Union[
    TextDelta,
    ThinkingDelta,
    PartStateEvent,
    OpaquePartEvent,
    MediaEvent,
    ToolCallStart,
    ToolCallDelta,
    ToolCallEnd,
    UsageEvent,
    FinishEvent,
    ModelEvent,
    LogprobsEvent,
]
