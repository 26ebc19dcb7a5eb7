"""A request body's JSON bytes written in short steps, for a worker thread doing heavy work.

``json_bytes`` (the transport's) writes a body with one call into json's C encoder, which holds
the GIL, and so any event loop of the process, for the whole body: about 10 ms a MiB. Here the
body is weighed first (a walk in Python, which lets the GIL pass), then written a piece of
about ``_BUDGET`` units at a time: a container that weighs less is written whole, a heavier one
member by member, its light members grouped into one call. Compact JSON separates a list's
items and a dict's members with a bare comma wherever the body is cut, so the text is the same.
Large strings (media in base64, a long text) are spliced in slices, as ``json_bytes`` does
(``_splice``), and the pieces are copied into one buffer of the final size: no step copies the
whole body at once. Whatever the steps cannot write as ``json_bytes`` would (a NaN, a lone
surrogate, a value JSON cannot carry) is left to ``json_bytes`` itself, so the bytes, or the
error, are always its own.
"""

from __future__ import annotations

import re
from typing import Any

from .._wire._jsontext import dumps_compact
from .._wire._outgoing import json_bytes
from .._wire._splice import LargeStrings, _sized, _write_string

__all__ = ["body_bytes"]

# What one call into json's encoder writes at most, in units of about 128 characters of JSON
# (a value, or 128 characters of a string): some 256 KiB, well under a ms.
_BUDGET = 2_048
_UNIT = 128


def body_bytes(body: Any) -> bytes:
    """``json_bytes(body)``, written in steps (see the module docstring).

    Raises:
        ConfigError: the body holds something JSON cannot carry (as ``json_bytes`` raises).
    """
    try:
        large = LargeStrings.of(body)
        value = body if large is None else large.body
        weights: dict[int, int] = {}
        _weigh(value, weights)
        pieces: list[str] = []
        _write(value, weights, pieces)
        return _joined(pieces, large)
    except (TypeError, ValueError, RecursionError):  # UnicodeEncodeError is a ValueError
        return json_bytes(body)  # NaN, a lone surrogate, no JSON form: its own handling


def _weigh(value: Any, weights: dict[int, int]) -> int:
    """The weight of ``value`` in units; each container's is kept in ``weights`` by id."""
    kind = value.__class__
    if kind is str:
        return 1 + len(value) // _UNIT
    if kind is dict:
        items: Any = value.values()
    elif kind is list:
        items = value
    else:
        return 1
    weight = 1
    for item in items:
        weight += _weigh(item, weights)
    weights[id(value)] = weight
    return weight


def _weight(value: Any, weights: dict[int, int]) -> int:
    found = weights.get(id(value))
    if found is not None:
        return found
    return 1 + len(value) // _UNIT if value.__class__ is str else 1


def _write(value: Any, weights: dict[int, int], out: list[str]) -> None:
    """Append ``dumps_compact(value)`` to ``out``, in pieces of about ``_BUDGET`` units."""
    kind = value.__class__
    if _weight(value, weights) <= _BUDGET or (kind is not list and kind is not dict):
        out.append(dumps_compact(value))
    elif kind is list:
        out.append("[")
        _write_members(value, weights, out, pairs=False)
        out.append("]")
    else:
        out.append("{")
        _write_members(list(value.items()), weights, out, pairs=True)
        out.append("}")


def _write_members(
    members: list[Any], weights: dict[int, int], out: list[str], pairs: bool
) -> None:
    """A list's items or a dict's ``(key, value)`` ``pairs``, comma-separated: a heavy one on
    its own, the light ones between them written in groups of about ``_BUDGET`` units."""
    group: list[Any] = []
    total = 0
    comma = ""
    for member in members:
        item = member[1] if pairs else member
        weight = _weight(item, weights)
        if group and (total + weight > _BUDGET or weight > _BUDGET):
            out.append(comma + _light(group, pairs))
            comma, group, total = ",", [], 0
        if weight > _BUDGET:
            out.append(comma)
            comma = ","
            if pairs:  # the key as json writes keys (a number's as a string), then the value
                out.append(dumps_compact({member[0]: None})[1:-5])
            _write(item, weights, out)
        else:
            group.append(member)
            total += weight
    if group:
        out.append(comma + _light(group, pairs))


def _light(group: list[Any], pairs: bool) -> str:
    """Light members written by one call, without the brackets around them."""
    return dumps_compact(dict(group) if pairs else group)[1:-1]


def _joined(pieces: list[str], large: LargeStrings | None) -> bytes:
    """The pieces' bytes, with the large strings spliced in, copied into one buffer."""
    chunks: list[bytes | str] = []
    if large is None:
        chunks = [piece.encode() for piece in pieces]
    else:
        cut = re.compile(f'"{re.escape(large.token)}(\\d+)"').split
        for piece in pieces:
            for index, text in enumerate(cut(piece)):
                if index % 2:
                    chunks.append(large.found[int(text)])
                elif text:
                    chunks.append(text.encode())
    size = sum(len(c) if c.__class__ is bytes else len(c) + 2 for c in chunks)
    out = _sized(size)
    for chunk in chunks:
        if isinstance(chunk, bytes):
            out.write(chunk)
        else:
            _write_string(out, chunk)
    return out.getvalue()
