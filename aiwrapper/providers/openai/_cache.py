"""OpenAI's prompt caching fields: a stable ``prompt_cache_key`` and the 24-hour retention.

OpenAI caches prompts by prefix on its own (from 1,024 tokens), routing a request by a hash
of the prompt's first tokens; ``prompt_cache_key`` joins that hash, so requests sharing a key
and a prefix reach the same cache. The key here is derived from what opens the conversation,
which every round of a tool loop and every later run of the same conversation repeat: the
model, the tools, the instructions and the messages up to the first user message. A key the
user set (``extra_body``) is kept. ``"prompt_cache_retention": "24h"`` (the API's other value
is ``"in_memory"``, the default) keeps cached prefixes up to a day, on both Chat Completions
and the Responses API. Both fields are OpenAI's own: a profile sends them only when it says
the server takes them, since compatible servers may refuse unknown fields. An image or a PDF
in the opening counts by a digest of its text, hashed in slices, so a 20 MB document adds no
copy of itself to the request's peak memory.
"""

from __future__ import annotations

import hashlib
import json
import operator
from typing import Any

from ..._wire._jsontext import Declaration, dumps_sorted

__all__ = ["add_cache_fields", "conversation_key"]

# A string this long (an image's or a PDF's base64) is hashed alone, in slices of this size,
# and stands in the key's text as its digest: never serialized, encoded or copied whole.
_LONG = 1 << 16

# A string this long (an image's or a PDF's base64) is hashed alone, in slices of this size,
# and stands in the key's text as its digest: never serialized, encoded or copied whole.
_LONG = 1 << 16


def add_cache_fields(body: dict[str, Any], cache: object, *, conversation: str) -> None:
    """Add ``prompt_cache_key`` (and, for ``"extended"``, the 24-hour retention) to ``body``.

    Args:
        body: The request body, after ``extra_body`` was merged: a field set there is kept.
        cache: The ``cache`` option; False adds nothing.
        conversation: The body's key holding the conversation (``messages`` or ``input``).
    """
    if cache is False:
        return
    if "prompt_cache_key" not in body:
        body["prompt_cache_key"] = conversation_key(body, conversation)
    if cache == "extended" and "prompt_cache_retention" not in body:
        body["prompt_cache_retention"] = "24h"


def conversation_key(body: dict[str, Any], conversation: str) -> str:
    """A short hash of what opens the conversation, the same in every round and later run."""
    items = body.get(conversation)
    opening: list[Any] = []
    for item in items if isinstance(items, list) else ():
        opening.append(item)
        if isinstance(item, dict) and item.get("role") == "user":
            break
    model, tools, instructions = body.get("model"), body.get("tools"), body.get("instructions")
    opened = _sorted(_digested(opening))
    # Every round of a tool loop opens the same way, with the same shared declarations: the
    # key is found by them (held, so their ids stay theirs) rather than hashed again.
    listed: list[Any] = tools if isinstance(tools, list) else []
    shared = _shared_tools(listed) if tools is listed else None
    cached = shared is not None and model.__class__ is str and instructions.__class__ in _PLAIN
    found = (model, shared, instructions, opened)
    if cached:
        known = _KEYS.get(found)
        if known is not None and all(map(operator.is_, known[0], listed)):
            return known[1]
    # The JSON of [model, tools, instructions, opening], keys sorted, written in parts: a tool
    # offered by every request keeps its JSON (the same text ``json.dumps`` would write).
    text = f"[{_sorted(model)},{_tools_json(tools)},{_sorted(instructions)},{opened}]"
    key = "aiw-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
    if cached:
        if len(_KEYS) >= _MOST_KEYS:
            _KEYS.clear()
        _KEYS[found] = (list(listed), key)
    return key


# Keys already made, by (model, the declarations' ids, instructions, the opening's JSON): a
# few per process (a model and its tools), so the cache starts over when full.
_KEYS: dict[tuple[Any, ...], tuple[list[Any], str]] = {}
_MOST_KEYS = 64
_PLAIN = (str, type(None))


def _shared_tools(tools: list[Any]) -> tuple[int, ...] | None:
    """The ids of ``tools`` when each is a shared declaration (read-only, so a key made from
    their JSON holds while they live), else None."""
    for tool in tools:
        if tool.__class__ is not Declaration:
            return None
    return tuple(map(id, tools))


def _tools_json(tools: object) -> str:
    if not isinstance(tools, list):
        return _sorted(tools)
    try:
        listed = [t.sorted_json() if isinstance(t, Declaration) else _sorted(t) for t in tools]
    except ValueError:  # NaN in a declaration: left to json.dumps
        return _sorted(tools)
    return "[" + ",".join(listed) + "]"


def _sorted(value: object) -> str:
    """``value`` as ``json.dumps(value, sort_keys=True, ...)`` writes it, NaN included."""
    try:
        return dumps_sorted(value)
    except ValueError:  # NaN from extra_body: hashed as json.dumps writes it
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digested(value: Any) -> Any:
    """``value`` with each long string replaced by its digest (the rest as it is)."""
    if isinstance(value, str):
        return "sha256:" + _digest(value) if len(value) > _LONG else value
    if isinstance(value, dict):
        return {key: _digested(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_digested(item) for item in value]
    return value


def _digest(text: str) -> str:
    digest = hashlib.sha256()
    for start in range(0, len(text), _LONG):
        digest.update(text[start : start + _LONG].encode("utf-8"))
    return digest.hexdigest()
