"""Standard JSON for what is read from a model and sent back on the wire.

Python's ``json`` reads and writes ``NaN`` and ``Infinity``, which are not JSON: a server that
receives them refuses the whole request body. It also raises ``RecursionError`` on absurdly
deep nesting. These helpers refuse both as ordinary ``ValueError``s, so arguments a model sent
that way count as invalid JSON (answered with an error result, replayed as ``{}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = [
    "Declaration",
    "dumps_compact",
    "dumps_sorted",
    "is_json_object",
    "loads_standard",
    "write_body",
]


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")


# ``json.loads`` with any keyword builds a new decoder (and its scanner) on every call; each
# streamed call's arguments are parsed a few times, so the decoder is built once.
_STANDARD = json.JSONDecoder(parse_constant=_refuse)
# ``decode``'s scanner (C where available), set by ``JSONDecoder.__init__`` but not in the stubs.
_scan: Callable[[str, int], tuple[Any, int]] = _STANDARD.scan_once  # type: ignore[attr-defined]


def loads_standard(text: str | bytes) -> Any:
    """Parse standard JSON only.

    Raises:
        ValueError: The text is not JSON, holds NaN or an infinity, or nests too deeply.
    """
    try:
        if isinstance(text, str) and not text.startswith("\ufeff"):
            # As ``_jsonscan.loads`` does for json.loads, written out again: a shared closure
            # costs 5-9 % more per call on the streaming path.
            try:  # the scanner straight away: decode's own steps cost more than a short parse
                value, end = _scan(text, 0)
            except StopIteration:  # leading white space, or no JSON value: decode says which
                return _STANDARD.decode(text)
            # Anything after the value (white space, or extra data): decode says which.
            return value if end == len(text) else _STANDARD.decode(text)
        # Bytes (their encoding detected) and a leading BOM (refused) as json.loads does.
        return json.loads(text, parse_constant=_refuse)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


# Built once: ``json.dumps`` with options builds a new encoder for every call.
dumps_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


# The same, keys sorted: for hashing a value whatever order its keys were written in.
dumps_sorted = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, sort_keys=True
).encode


class Declaration(dict[str, Any]):
    """A tool's declaration as one dialect renders it, shared read-only by every request that
    offers the tool: its compact JSON is written once, not into every request body."""

    __slots__ = ("_compact", "_sorted")

    def compact_json(self) -> str:
        """The declaration as ``dumps_compact`` writes it.

        Raises:
            ValueError: It holds NaN or an infinity.
        """
        try:
            return self._compact
        except AttributeError:
            self._compact: str = dumps_compact(self)
            return self._compact

    def sorted_json(self) -> str:
        """The declaration as ``dumps_sorted`` writes it, written once.

        Raises:
            ValueError: It holds NaN or an infinity.
        """
        try:
            return self._sorted
        except AttributeError:
            self._sorted: str = dumps_sorted(self)
            return self._sorted


def write_body(body: Any) -> str:
    """``dumps_compact(body)``, with the shared declarations of a top-level ``tools`` list
    copied in as written before: a tool loop sends the same tools with every request.

    Raises:
        ValueError: The body holds NaN or an infinity.
        TypeError: The body holds something JSON cannot carry.
    """
    tools = body.get("tools") if body.__class__ is dict else None
    if tools.__class__ is not list or not tools or tools[0].__class__ is not Declaration:
        return dumps_compact(body)
    keys = list(body)
    at = keys.index("tools")
    listed = ",".join(
        [d.compact_json() if d.__class__ is Declaration else dumps_compact(d) for d in tools]
    )
    # The fields around "tools", written as objects of their own without their braces.
    before = dumps_compact({key: body[key] for key in keys[:at]})[1:-1]
    after = dumps_compact({key: body[key] for key in keys[at + 1 :]})[1:-1]
    fields = [field for field in (before, f'"tools":[{listed}]', after) if field]
    return "{" + ",".join(fields) + "}"


def is_json_object(text: str) -> bool:
    """Whether ``text`` is a standard JSON object (what a call's arguments must be)."""
    try:
        return isinstance(loads_standard(text), dict)
    except ValueError:
        return False
