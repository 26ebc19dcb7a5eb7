"""Prompt-caching breakpoints on a Messages request, placed when the request is encoded.

Anthropic caches a request's prefix (tools, then ``system``, then ``messages``) up to each
block carrying ``cache_control``, and reads it back at a tenth of the input price when the
next request starts with the same bytes. The wire's rules, as its prompt-caching docs state
them:

* at most 4 blocks may carry ``cache_control`` in one request (else 400 "A maximum of 4
  blocks with cache_control may be provided. Found 5."), and a top-level ``cache_control``
  (automatic caching) takes one of those slots;
* it goes on a tool definition, a ``system`` text block, or a message's text, image,
  document, ``tool_use`` or ``tool_result`` block; never on a ``thinking`` or
  ``redacted_thinking`` block, an empty text block, or a tool loaded on demand
  (``defer_loading``), which is not part of the prefix;
* ``{"type": "ephemeral"}`` lives 5 minutes, refreshed on each read; ``"ttl": "1h"`` an hour
  (writes cost 2x instead of 1.25x), and is taken without a beta header now (it once needed
  ``extended-cache-ttl-2025-04-11``, which ``AnthropicProvider(betas=...)`` can still send);
* a longer TTL must come before a shorter one in the prefix: an automatic marker takes the
  1-hour TTL when a user's 1-hour marker follows it, and never after a 5-minute one.

The automatic breakpoints go on the last tool, the last ``system`` block and the last block of
the final message, which in a tool loop is the newest tool result: each round reads the whole
previous round from the cache and writes only what is new. The user's own breakpoints (from
message dicts, ``native_tools`` or ``extra_body``) are kept and counted first; when fewer than
three slots are left, the automatic ones give way in prefix order: the tools' first (the
``system`` breakpoint caches the tools too), then the ``system``'s; the final message's is
kept longest because it caches the most. Breakpoints are added to the encoded body only, on
copies of the blocks, so none ever reaches ``result.messages``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_BREAKPOINTS", "count_breakpoints", "place_breakpoints"]

MAX_BREAKPOINTS = 4
_REFUSING = frozenset({"thinking", "redacted_thinking"})
# A spot: the list holding a block and the block's index in it.
_Spot = tuple[list[Any], int]


def place_breakpoints(body: dict[str, Any], cache: object, *, unmarked: bool = False) -> None:
    """Add the automatic breakpoints to ``body`` in place (none when ``cache`` is False).

    ``unmarked`` says the encoder knows that no block of ``body`` carries a marker (nothing
    the user wrote reached it), so none are counted.
    """
    if cache is False:
        return
    system = body.get("system")
    if isinstance(system, str) and system:  # only a block carries a breakpoint
        body["system"] = [{"type": "text", "text": system}]
    mine = 0 if unmarked else count_breakpoints(body)
    wanted = [_final_message_spot(body), _system_spot(body), _tool_spot(body)]
    chosen = [spot for spot in wanted if spot is not None][: max(MAX_BREAKPOINTS - mine, 0)]
    if not mine:  # the markers are all ours: every one 1-hour when extended, else 5-minute
        marker = {"type": "ephemeral", "ttl": "1h"} if cache == "extended" else None
        for holder, index in chosen:
            control = dict(marker) if marker else {"type": "ephemeral"}
            holder[index] = {**holder[index], "cache_control": control}
        return
    # Prefix order, to give a 1-hour marker only where no 5-minute one comes before it.
    order = {id(holder): rank for rank, holder in enumerate(_holders(body))}
    chosen.sort(key=lambda spot: (order.get(id(spot[0]), len(order)), spot[1]))
    for holder, index in chosen:
        shorter_before, hour_after = _ttls_around(body, holder, index)
        marker = {"type": "ephemeral"}
        if (cache == "extended" or hour_after) and not shorter_before:
            marker["ttl"] = "1h"
        holder[index] = {**holder[index], "cache_control": marker}


def count_breakpoints(body: dict[str, Any]) -> int:
    """How many ``cache_control`` markers ``body`` already holds (a top-level one counts)."""
    count = 1 if "cache_control" in body else 0
    for holder in _holders(body):
        for block in holder:
            if not isinstance(block, dict):
                continue
            if "cache_control" in block:
                count += 1
            nested = block.get("content")
            if isinstance(nested, list):  # a tool_result's own blocks count too
                count += sum(_marked(inner) for inner in nested)
    return count


def _marked(block: object) -> int:
    return 1 if isinstance(block, dict) and "cache_control" in block else 0


def _holders(body: dict[str, Any]) -> list[list[Any]]:
    """The lists of blocks, in prefix order: tools, system, each message's content."""
    holders = [body[key] for key in ("tools", "system") if isinstance(body.get(key), list)]
    for message in body.get("messages") or ():
        if isinstance(message, dict):
            content = message.get("content")
            if isinstance(content, list):
                holders.append(content)
    return holders


def _tool_spot(body: dict[str, Any]) -> _Spot | None:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return None
    return _last(tools, lambda tool: not tool.get("defer_loading"))


def _system_spot(body: dict[str, Any]) -> _Spot | None:
    system = body.get("system")
    return _last(system, _takes_marker) if isinstance(system, list) else None


def _final_message_spot(body: dict[str, Any]) -> _Spot | None:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None
    final = messages[-1]
    content = final.get("content")
    if isinstance(content, str) and content:  # the string shorthand, as a block
        final["content"] = content = [{"type": "text", "text": content}]
    return _last(content, _takes_marker) if isinstance(content, list) else None


def _takes_marker(block: dict[str, Any]) -> bool:
    kind = block.get("type")
    return kind not in _REFUSING and not (kind == "text" and not block.get("text"))


def _last(holder: list[Any], accepts: Any) -> _Spot | None:
    """The last block of ``holder`` that can carry a marker; one already marked ends it."""
    for index in range(len(holder) - 1, -1, -1):
        block = holder[index]
        if not isinstance(block, dict):
            continue
        if "cache_control" in block:
            return None  # the user's own marker already sits here: no second one
        if accepts(block):
            return holder, index
    return None


def _ttls_around(body: dict[str, Any], holder: list[Any], index: int) -> tuple[bool, bool]:
    """Whether a 5-minute marker comes before ``holder[index]``, and a 1-hour one after it:
    the API wants every 1-hour marker before every 5-minute one."""
    shorter_before = hour_after = False
    seen = False
    for current in _holders(body):
        for position, block in enumerate(current):
            if current is holder and position == index:
                seen = True
                continue
            for marked in (block, *_nested(block)):
                control = marked.get("cache_control")
                if not isinstance(control, dict):
                    continue
                hour = control.get("ttl") == "1h"
                shorter_before |= not seen and not hour
                hour_after |= seen and hour
    return shorter_before, hour_after


def _nested(block: object) -> list[dict[str, Any]]:
    nested = block.get("content") if isinstance(block, dict) else None
    if not isinstance(nested, list):
        return []
    return [inner for inner in nested if isinstance(inner, dict)]
