"""The content blocks of an Anthropic stream while they are open, and the ones kept whole.

``_decode.py`` keys a ``Block`` by its ``index`` and turns the blocks it interprets
(text, thinking, tool_use) into neutral events itself. Every other block (redacted thinking,
server-tool blocks such as ``server_tool_use`` or ``web_search_tool_result``, and types newer
than this SDK) is rebuilt here from its start event and deltas, to be replayed verbatim. The
rule for those blocks: nothing in them raises. A delta that cannot be folded, or streamed
input that is not JSON, becomes the block's ``problem`` and the block is kept as far as it was
read, so its damage never costs the text and calls around it.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["Block", "finish_opaque", "fold_opaque", "unreadable_block"]

# What a delta of an unexpected shape raises while it is folded.
_UNFOLDABLE = (KeyError, TypeError, ValueError, AttributeError)


class Block:
    """What the decoder remembers about one open content block."""

    __slots__ = ("citations", "fragments", "kind", "opened", "problem", "raw", "streamed")

    def __init__(self, kind: str, raw: dict[str, Any]) -> None:
        self.kind = kind  # "text", "thinking", "tool_use" or "opaque"
        self.raw = raw  # the block as content_block_start gave it
        self.opened = False  # a text part was started for it
        self.fragments: list[str] = []  # input_json_delta pieces of a block kept whole
        self.streamed = False  # a tool_use block had input deltas (the assembler keeps them)
        citations = raw.get("citations") if kind == "text" else None
        self.citations: list[Any] = list(citations or [])
        self.problem: str | None = None  # why an opaque block could not be read whole


def unreadable_block(value: Any) -> Block:
    """A block that is not even an object: kept empty (so never replayed), ``value`` named."""
    block = Block("opaque", {})
    block.problem = f"the block is not an object: {value!r:.200}"
    return block


def fold_opaque(block: Block, delta: Any) -> None:
    """Fold a delta into a block kept whole (a server_tool_use streams its input, say).

    A delta that cannot be folded is noted on the block, never raised.
    """
    try:
        _fold(block, delta)
    except _UNFOLDABLE as exc:
        if block.problem is None:  # the first failure explains the rest
            block.problem = f"a delta could not be folded ({exc!r}): {delta!r:.200}"


def finish_opaque(block: Block) -> None:
    """Put the streamed input, when there is one, in place of the start event's."""
    text = "".join(block.fragments)
    # A server_tool_use starts with "input": {} and streams its input in pieces of any size,
    # the empty string included (one lone "" is a real stream's whole input), or not at all:
    # only fragments that say something replace what the start event gave.
    if not text.strip():
        return
    try:
        block.raw["input"] = json.loads(text)
    except ValueError as exc:
        block.problem = block.problem or f"its streamed input is not JSON ({exc}): {text:.200}"


def _fold(block: Block, delta: dict[str, Any]) -> None:
    kind, raw = delta["type"], block.raw
    if kind == "input_json_delta":
        block.fragments.append(_string(delta["partial_json"]))
    elif kind == "text_delta":
        raw["text"] = _string(raw.get("text", "")) + _string(delta["text"])
    elif kind == "thinking_delta":
        raw["thinking"] = _string(raw.get("thinking", "")) + _string(delta["thinking"])
    elif kind == "signature_delta":
        raw["signature"] = delta["signature"]
    elif kind == "citations_delta":
        raw["citations"] = [*raw.get("citations", []), delta["citation"]]
    else:  # a delta type newer than this SDK: the block cannot be rebuilt verbatim
        raise ValueError(f"unknown delta type {kind!r}")


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__}")
    return value
