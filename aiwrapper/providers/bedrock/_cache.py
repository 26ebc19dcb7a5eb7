"""Prompt-caching checkpoints on a Converse request: ``cachePoint`` blocks, placed at encoding.

Bedrock caches a request's prefix (tools, then ``system``, then ``messages``) up to each
``cachePoint`` block, for the models that take them (Claude and Nova, per AWS's prompt-caching
guide; other models refuse the block, so they get none). A checkpoint is a block of its own,
``{"cachePoint": {"type": "default"}}`` (``"ttl": "1h"`` for the longer life), placed after
the last tool, after the last ``system`` block and after the last block of the final message
(the newest tool results, in a loop): each round reads the previous one from the cache. At
most 4 checkpoints go in a request; the user's own (in ``extra_body``) are not doubled. They
are added to the encoded body only, never to the conversation.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["caches", "place_cache_points"]

_MOST = 4


def caches(model: str) -> bool:
    """Whether ``model`` takes ``cachePoint`` blocks (Claude and Nova, any region prefix)."""
    return _claude(model) or "amazon.nova" in model


def _claude(model: str) -> bool:
    return "anthropic.claude" in model


def place_cache_points(
    body: dict[str, Any], cache: Literal["auto", "extended"], model: str
) -> None:
    """Add a checkpoint after the tools, the system blocks and the final message, in place.

    Nova takes checkpoints in ``system`` and ``messages`` only, and no ``ttl`` (AWS's
    prompt-caching guide lists the fields per model family): its tools get none.
    """
    claude = _claude(model)
    point: dict[str, Any] = {"type": "default"}
    if cache == "extended" and claude:
        point["ttl"] = "1h"
    tools = body.get("toolConfig", {}).get("tools") if claude else None
    places = [tools, body.get("system"), *(m["content"] for m in body["messages"][-1:])]
    free = _MOST - sum(_count(place) for place in places if place)
    for place in reversed(places):  # the final message's keeps its place longest
        if free > 0 and place and "cachePoint" not in place[-1]:
            place.append({"cachePoint": dict(point)})
            free -= 1


def _count(blocks: list[dict[str, Any]]) -> int:
    return sum(1 for block in blocks if "cachePoint" in block)
