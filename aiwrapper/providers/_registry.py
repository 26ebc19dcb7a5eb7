"""Providers chosen by name, and what their packages know of models.

Each HTTP provider package exports ``API_KEY_ENV_VARS`` and a ``build(model)`` that makes its
model with every default; this module only knows their names. A package is imported when it
is looked at, so choosing one never loads the others' wire code. What the packages know of
their models is gathered here for ``aiwrapper.models``: ``MODEL_RULES`` (rows of
``aiwrapper.modelrules``), ``EXAMPLE_MODELS`` (current models, per provider name) and
``CATALOGUE_IDS`` (a provider name the models.dev catalogue spells differently). Importing a
package costs little (its transport loads only when a model is built).
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import pkgutil
import types
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, cast

from .._contract import Model
from ..errors import ConfigError
from ..modelrules import Rule, merged_facts

__all__ = [
    "HTTP_PROVIDERS",
    "build_named",
    "catalogue_ids",
    "example_models",
    "from_env",
    "rules_for",
]

HTTP_PROVIDERS = ("openai", "anthropic", "gemini", "ollama")
# The providers whose key picks them, in the order their keys are tried (a local Ollama
# needs no key, so it is only ever picked by name).
_KEYED = ("openai", "anthropic", "gemini")


class _ProviderPackage(Protocol):
    API_KEY_ENV_VARS: tuple[str, ...]

    def build(self, model: str | None = None) -> Model: ...


def _package(name: str) -> _ProviderPackage:
    return cast(_ProviderPackage, _module(name))


def build_named(name: str, model: str | None = None) -> Model:
    """The model of the provider called ``name`` (``offline`` included), with its defaults.

    Raises:
        ConfigError: ``name`` is no provider's name, or the provider's key is missing.
    """
    if name == "offline":
        from .scripted import OfflineModel

        return OfflineModel()
    if name not in HTTP_PROVIDERS:
        raise ConfigError(f"AIWRAPPER_PROVIDER={name!r} is not one of {sorted(HTTP_PROVIDERS)}")
    return _package(name).build(model)


def from_env(env: Mapping[str, str] = os.environ) -> Model:
    """``AIWRAPPER_PROVIDER``'s model, else that of the first provider whose key is set, else
    the offline model (said once on the ``aiwrapper`` logger: it was not asked for)."""
    chosen = env.get("AIWRAPPER_PROVIDER") or next(
        (name for name in _KEYED if any(env.get(v) for v in _package(name).API_KEY_ENV_VARS)),
        None,
    )
    if chosen is None:
        keys = ", ".join(v for name in _KEYED for v in _package(name).API_KEY_ENV_VARS)
        logging.getLogger("aiwrapper").warning(
            "Lang.from_env(): no API key found (%s, or AIWRAPPER_PROVIDER): running on the "
            "offline model",
            keys,
        )
        chosen = "offline"
    return build_named(chosen, env.get("AIWRAPPER_MODEL") or None)


@functools.cache
def _packages() -> tuple[ModuleType, ...]:
    """Every provider package, imported (each is light until it builds a model)."""
    found = pkgutil.iter_modules([str(Path(__file__).parent)])
    return tuple(_module(m.name) for m in sorted(found, key=lambda m: m.name) if m.ispkg)


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{name}")


@functools.cache
def _model_rules() -> tuple[Rule, ...]:
    return tuple(row for package in _packages() for row in getattr(package, "MODEL_RULES", ()))


@functools.lru_cache(maxsize=512)
def rules_for(provider: str, model: str) -> Mapping[str, Any]:
    """The merged facts of every package's rows of ``provider`` that match ``model``.

    Read-only, and computed once per provider and model: the rows never change, and every run
    asks for its model's facts.
    """
    return merged_facts(_model_rules(), provider, model)


def example_models(provider: str) -> tuple[str, ...]:
    """Current models of ``provider`` that the packages name, newest first (else none)."""
    for package in _packages():
        examples: Mapping[str, tuple[str, ...]] = getattr(package, "EXAMPLE_MODELS", {})
        if provider in examples:
            return examples[provider]
    return ()


@functools.cache
def catalogue_ids() -> Mapping[str, str]:
    """Provider names that the models.dev catalogue lists under another id, with that id."""
    ids: dict[str, str] = {}
    for package in _packages():
        ids.update(getattr(package, "CATALOGUE_IDS", {}))
    return types.MappingProxyType(ids)
