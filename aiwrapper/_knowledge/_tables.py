"""What the provider packages publish of their models, gathered for the knowledge layer.

Each provider package exports light tables beside its wire code: ``MODEL_RULES`` (rows of
``aiwrapper._knowledge._modelrules``), ``EXAMPLE_MODELS`` (current models, per provider name),
``CATALOGUE_IDS`` (a provider name the models.dev catalogue spells differently) and
``HEADER_PREFIXES`` (the prefixes of its own request headers). The packages stand above this
layer, so they are found as plugins are, by name in the ``aiwrapper/providers`` folder and
imported when first looked at (as anyio finds its backends), never by an import statement:
the tables flow down, the imports never climb up. Importing a package loads only its light
tables; its provider, wire code and front-ends load when one of those names is first read.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import types
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from ._modelrules import Rule, merged_facts

__all__ = ["catalogue_ids", "example_models", "header_prefixes", "provider_packages", "rules_for"]

# The provider packages' parent, named as a string: it stands above this layer.
_PROVIDERS = "aiwrapper.providers"


@functools.cache
def provider_packages() -> tuple[ModuleType, ...]:
    """Every provider package, imported (each loads its wire code only when it is read)."""
    found = pkgutil.iter_modules([str(Path(__file__).parent.parent / "providers")])
    return tuple(_module(m.name) for m in sorted(found, key=lambda m: m.name) if m.ispkg)


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{_PROVIDERS}.{name}")


def _exported(attribute: str) -> list[Any]:
    """The value of ``attribute`` in every package that exports it."""
    return [
        getattr(package, attribute)
        for package in provider_packages()
        if hasattr(package, attribute)
    ]


@functools.cache
def _model_rules() -> tuple[Rule, ...]:
    return tuple(row for rows in _exported("MODEL_RULES") for row in rows)


@functools.lru_cache(maxsize=512)
def rules_for(provider: str, model: str) -> Mapping[str, Any]:
    """The merged facts of every package's rows of ``provider`` that match ``model``.

    Read-only, and computed once per provider and model: the rows never change, and every run
    asks for its model's facts.
    """
    return merged_facts(_model_rules(), provider, model)


def example_models(provider: str) -> tuple[str, ...]:
    """Current models of ``provider`` that the packages name, newest first (else none)."""
    examples: list[Mapping[str, tuple[str, ...]]] = _exported("EXAMPLE_MODELS")
    return next((named[provider] for named in examples if provider in named), ())


@functools.cache
def catalogue_ids() -> Mapping[str, str]:
    """Provider names that the models.dev catalogue lists under another id, with that id."""
    ids: dict[str, str] = {}
    for named in _exported("CATALOGUE_IDS"):
        ids.update(named)
    return types.MappingProxyType(ids)


@functools.cache
def header_prefixes() -> tuple[str, ...]:
    """Prefixes of the request headers the packages call their own (``HEADER_PREFIXES``).

    A cassette records these beside the redacted secret ones: they change what a server does.
    """
    return tuple(prefix for prefixes in _exported("HEADER_PREFIXES") for prefix in prefixes)
