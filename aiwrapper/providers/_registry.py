"""Providers chosen by name, and what their packages know of models.

Each HTTP provider package exports ``API_KEY_ENV_VARS`` and a ``build(model)`` that makes its
model with every default; this module only knows their names. A package is imported when it is
looked at, so choosing one never loads the others' wire code. What the packages know of their
models is gathered here for ``aiwrapper.models``: ``MODEL_RULES`` (rows of
``aiwrapper._modelrules``), ``EXAMPLE_MODELS`` (current models, per provider name) and
``CATALOGUE_IDS`` (a provider name the models.dev catalogue spells differently), and the
prefixes of their own request headers (``HEADER_PREFIXES``). Importing a
package costs little: it loads its provider, wire code and front-ends when one of those names
is first read, so gathering these loads none of them. A package that also serves its wire to
clients exports ``FRONTENDS`` (POST path -> front-end); ``frontends()`` finds them all for the
gateway, which knows no wire by name, and only then are the front-ends loaded.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
import pkgutil
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple, Protocol, cast

from .._contract import Model
from .._errors import ConfigError
from .._modelrules import Rule, merged_facts
from .._serving import DefaultFrontend, Frontend

__all__ = [
    "HTTP_PROVIDERS",
    "Mounts",
    "build_for_route",
    "build_named",
    "catalogue_ids",
    "example_models",
    "from_env",
    "frontends",
    "header_prefixes",
    "mounts_of",
    "route_providers",
    "rules_for",
]

HTTP_PROVIDERS = ("openai", "anthropic", "gemini", "ollama")
# The providers whose key picks them, in the order their keys are tried (a local Ollama
# needs no key, so it is only ever picked by name).
_KEYED = ("openai", "anthropic", "gemini")


class _ProviderPackage(Protocol):
    API_KEY_ENV_VARS: tuple[str, ...]

    def build(self, model: str | None = None, *, base_url: str | None = None) -> Model: ...


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


def build_for_route(name: str, model: str, base_url: str | None = None) -> Model:
    """The model ``model`` of the provider called ``name``, or of the compatible-server preset
    called ``name`` (``groq``, ``vllm``...), each with its defaults and key; at ``base_url``
    when one is given.

    Raises:
        ConfigError: ``name`` is neither (the names it may take are listed), or the key it
            needs is missing.
    """
    if name in HTTP_PROVIDERS:
        return _package(name).build(model, base_url=base_url)
    from .openai import PRESETS, build_compatible

    if name.lower() not in PRESETS:
        known = ", ".join(route_providers())
        raise ConfigError(f"unknown provider {name!r}; known: {known}")
    return build_compatible(base_url, model=model, preset=name)


def route_providers() -> tuple[str, ...]:
    """Every name ``build_for_route`` takes: the HTTP providers, then the presets, sorted."""
    from .openai import PRESETS

    return (*HTTP_PROVIDERS, *sorted(PRESETS))


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
    """Every provider package, imported (each loads its wire code only when it is read)."""
    found = pkgutil.iter_modules([str(Path(__file__).parent)])
    return tuple(_module(m.name) for m in sorted(found, key=lambda m: m.name) if m.ispkg)


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{name}")


def _exported(attribute: str) -> list[Any]:
    """The value of ``attribute`` in every package that exports it."""
    return [getattr(package, attribute) for package in _packages() if hasattr(package, attribute)]


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


class Mounts(NamedTuple):
    """The front-ends the provider packages serve, and the one that speaks for the rest."""

    by_path: dict[str, Frontend]
    default: DefaultFrontend


def frontends() -> Mounts:
    """The front-ends of every provider package (``FRONTENDS``) and the ``DEFAULT_FRONTEND``.

    Every package is looked at, so a new one serving a wire needs no line anywhere else.
    """
    return mounts_of(_packages())


def mounts_of(packages: Iterable[object]) -> Mounts:
    """The front-ends ``packages`` export, each POST path and the default claimed once.

    Raises:
        ConfigError: Two packages claim one path, or not exactly one exports a default.
    """
    by_path: dict[str, Frontend] = {}
    defaults: list[DefaultFrontend] = []
    for package in packages:
        for path, front in getattr(package, "FRONTENDS", {}).items():
            if path in by_path:
                raise ConfigError(f"two provider packages serve POST {path}")
            by_path[path] = front
        default = getattr(package, "DEFAULT_FRONTEND", None)
        if default is not None:
            defaults.append(default)
    if len(defaults) != 1:
        raise ConfigError(f"{len(defaults)} provider packages export a DEFAULT_FRONTEND, not 1")
    return Mounts(by_path, defaults[0])
