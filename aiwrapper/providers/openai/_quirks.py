"""Response quirks of particular OpenAI-compatible servers, read into neutral events.

This module owns Mistral's typed content chunks, OpenRouter's streamed ``reasoning_details``
(merged per item for replay) and the ``annotations`` of search models; the stream decoder
calls these for the rarer keys of a delta.
"""

from __future__ import annotations

from typing import Any

from ..._conversation._events import Event, OpaquePartEvent, TextDelta, ThinkingDelta
from ..._conversation._messages import ProviderState

__all__ = ["KeptFields", "content_items"]


def content_items(items: list[dict[str, Any]], out: list[Event]) -> None:
    """Events for ``content`` sent as typed chunks instead of a string.

    Mistral reasoning models do this: ``{"type": "text"}`` chunks are answer text, a
    ``{"type": "thinking"}`` chunk holds its own list of text chunks.
    """
    for item in items:
        kind = item.get("type")
        if kind == "text" and item.get("text"):
            out.append(TextDelta(item["text"]))
        elif kind == "thinking":
            text = "".join(t.get("text", "") for t in item.get("thinking") or ())
            if text:
                out.append(ThinkingDelta(text))


def merge_reasoning_details(merged: list[Any], details: Any) -> None:
    """Fold streamed OpenRouter ``reasoning_details`` pieces into whole items, in place.

    Pieces of one item share its ``index``: their ``text``/``summary``/``data`` strings are
    joined and later keys win (the signature arrives last). Replay needs the whole items. An
    item of another shape is kept as it came, never raised on: it is not ours to read.
    """
    for detail in details if isinstance(details, list) else [details]:
        last = merged[-1] if merged else None
        if not isinstance(detail, dict) or not isinstance(last, dict):
            merged.append(dict(detail) if isinstance(detail, dict) else detail)
            continue
        index = detail.get("index")
        if index is None or last.get("index") != index:
            merged.append(dict(detail))
            continue
        for key, value in detail.items():
            if key in ("text", "summary", "data") and isinstance(value, str):
                last[key] = (last.get(key) or "") + value
            elif value is not None:
                last[key] = value


def keep_annotations(kept: list[Any], annotations: Any) -> None:
    """Add the annotations of one delta (or whole message) to ``kept``, each once.

    Some servers repeat a citation on later deltas; an exact repeat adds nothing.
    """
    for item in annotations if isinstance(annotations, list) else [annotations]:
        if item not in kept:
            kept.append(item)


class KeptFields:
    """Message fields no event carries, kept whole until the turn ends (streamed or not).

    OpenRouter's ``reasoning_details`` are merged per item and replayed to the same server;
    ``annotations`` (url citations of search models) are kept for the user. Neither raises on
    a shape it does not expect: those fields are not ours to read.
    """

    __slots__ = ("annotations", "details")

    def __init__(self) -> None:
        self.details: list[Any] = []
        self.annotations: list[Any] = []

    def add(self, delta: dict[str, Any]) -> None:
        """Keep the fields of one delta (or of a whole message)."""
        if delta.get("reasoning_details"):
            merge_reasoning_details(self.details, delta["reasoning_details"])
        if delta.get("annotations"):  # on a text delta, or alone in the last (search models)
            keep_annotations(self.annotations, delta["annotations"])

    def flush(self, provider: str) -> list[Event]:
        """One opaque part per kept field, then empty again."""
        if not self.details and not self.annotations:  # the common case: nothing was kept
            return []
        out: list[Event] = []
        if self.details:
            state = ProviderState(provider, {"reasoning_details": self.details})
            out.append(OpaquePartEvent(state, kind="thinking"))
        if self.annotations:
            out.append(OpaquePartEvent(ProviderState(provider, {"annotations": self.annotations})))
        self.details, self.annotations = [], []
        return out
