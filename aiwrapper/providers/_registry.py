"""Providers chosen by name, and the front-ends their packages serve.

Each HTTP provider package exports ``API_KEY_ENV_VARS`` and a ``build(model)`` that makes its
model with every default; this module only knows their names. A package is imported when it is
looked at, so choosing one never loads the others' wire code. What the packages know of their
models (rules, example models, catalogue ids, header prefixes) is gathered below the providers,
in ``aiwrapper._knowledge._tables``, which also finds the packages. Importing a package costs
little: it loads its provider, wire code and front-ends when one of those names is first
read. A package that also serves its wire to
clients exports ``FRONTENDS`` (POST path -> front-end); ``frontends()`` finds them all for the
gateway, which knows no wire by name, and only then are the front-ends loaded.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import NamedTuple, Protocol, cast

from .._errors import ConfigError
from .._knowledge._tables import provider_packages
from .._run._contract import Model
from ._serving import DefaultFrontend, Frontend

__all__ = [
    "HTTP_PROVIDERS",
    "Mounts",
    "build_for_route",
    "build_named",
    "from_env",
    "frontends",
    "mounts_of",
    "route_providers",
]

HTTP_PROVIDERS = ("openai", "anthropic", "gemini", "ollama", "bedrock")
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
    """The model ``model`` of the provider called ``name``, of Claude on Vertex AI
    (``vertex-anthropic``), or of the compatible-server preset called ``name`` (``groq``,
    ``vllm``...), each with its defaults and key; at ``base_url`` when one is given.

    Raises:
        ConfigError: ``name`` is none of these (the names it may take are listed), or the key
            or project it needs is missing.
    """
    if name in HTTP_PROVIDERS:
        return _package(name).build(model, base_url=base_url)
    if name == "vertex-anthropic":
        from . import anthropic
        from ._vertex import vertex_from_env

        return anthropic.build(model, vertex=vertex_from_env(), base_url=base_url)
    from .openai import PRESETS, build_compatible

    if name.lower() not in PRESETS:
        known = ", ".join(route_providers())
        raise ConfigError(f"unknown provider {name!r}; known: {known}")
    return build_compatible(base_url, model=model, preset=name)


def route_providers() -> tuple[str, ...]:
    """Every name ``build_for_route`` takes: the HTTP providers, then the presets, sorted."""
    from .openai import PRESETS

    return (*HTTP_PROVIDERS, "vertex-anthropic", *sorted(PRESETS))


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


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{name}")


class Mounts(NamedTuple):
    """The front-ends the provider packages serve, and the one that speaks for the rest."""

    by_path: dict[str, Frontend]
    default: DefaultFrontend


def frontends() -> Mounts:
    """The front-ends of every provider package (``FRONTENDS``) and the ``DEFAULT_FRONTEND``.

    Every package is looked at, so a new one serving a wire needs no line anywhere else.
    """
    return mounts_of(provider_packages())


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
