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
    "json_writer",
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


def json_writer(
    *,
    separators: tuple[str, str] = (",", ":"),
    ensure_ascii: bool = False,
    allow_nan: bool = False,
    sort_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> Callable[[Any], str]:
    """``json.dumps`` with these options, its C scanner set up once.

    ``json.dumps`` and ``JSONEncoder.encode`` set up a new scanner at every call, which costs
    more than writing a small object. This one skips the check for circular references: a
    value that holds itself recurses until Python's limit, and is then written again by
    ``json``'s own encoder, which raises what ``json.dumps`` raises (ValueError).
    """
    encoder = json.JSONEncoder(
        separators=separators,
        ensure_ascii=ensure_ascii,
        allow_nan=allow_nan,
        sort_keys=sort_keys,
        default=default,
    )
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - an interpreter without json's C accelerator
        return encoder.encode
    quote = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    item, key = separators
    scan = make(None, encoder.default, quote, None, key, item, sort_keys, False, allow_nan)
    join = "".join

    def write(value: Any) -> str:
        try:
            return join(scan(value, 0))
        except RecursionError:  # circular, or nested beyond reach: json says which
            return encoder.encode(value)

    return write


# ``json.dumps(separators=(",", ":"), ensure_ascii=False, allow_nan=False)``, set up once.
dumps_compact = json_writer()
# The same, keys sorted: for hashing a value whatever order its keys were written in.
dumps_sorted = json_writer(sort_keys=True)


class Declaration(dict[str, Any]):
    """A tool's declaration as one dialect renders it, shared read-only by every request that
    offers the tool: its compact JSON is written once, not into every request body."""

    __slots__ = ("_compact", "_derived", "_sorted")

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

    def derived(self, name: str, make: Callable[[Declaration], dict[str, Any]]) -> Declaration:
        """The declaration ``make`` builds from this one (another shape of it), built once
        per ``name`` and shared as this one is."""
        try:
            known = self._derived
        except AttributeError:
            self._derived: dict[str, Declaration] = {}
            known = self._derived
        shared = known.get(name)
        if shared is None:
            shared = known[name] = Declaration(make(self))
        return shared

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

    A declaration counts as an entry of ``tools`` or inside a list one of its entries holds
    (the shape that groups declarations under one key).

    Raises:
        ValueError: The body holds NaN or an infinity.
        TypeError: The body holds something JSON cannot carry.
    """
    tools = body.get("tools") if body.__class__ is dict else None
    if tools.__class__ is not list or not tools or not _declares(tools[0]):
        return dumps_compact(body)
    keys = list(body)
    at = keys.index("tools")
    # The fields around "tools", written as objects of their own without their braces.
    before = dumps_compact({key: body[key] for key in keys[:at]})[1:-1]
    after = dumps_compact({key: body[key] for key in keys[at + 1 :]})[1:-1]
    fields = [field for field in (before, f'"tools":{_list_json(tools)}', after) if field]
    return "{" + ",".join(fields) + "}"


def _declares(entry: object) -> bool:
    """Whether ``entry`` is a declaration, or a plain object with a list of them."""
    if entry.__class__ is Declaration:
        return True
    return entry.__class__ is dict and any(
        v.__class__ is list and v and v[0].__class__ is Declaration for v in entry.values()
    )


def _list_json(items: list[Any]) -> str:
    written = [d.compact_json() if d.__class__ is Declaration else _entry_json(d) for d in items]
    return "[" + ",".join(written) + "]"


def _entry_json(entry: Any) -> str:
    if not _declares(entry):
        return dumps_compact(entry)
    fields = [
        f"{dumps_compact(key)}:"
        + (_list_json(value) if value.__class__ is list else dumps_compact(value))
        for key, value in entry.items()
    ]
    return "{" + ",".join(fields) + "}"


def is_json_object(text: str) -> bool:
    """Whether ``text`` is a standard JSON object (what a call's arguments must be)."""
    try:
        return isinstance(loads_standard(text), dict)
    except ValueError:
        return False
