"""Providers chosen by name: what ``Lang.from_env`` and the command line pick from.

Each HTTP provider package exports ``API_KEY_ENV_VARS`` and a ``build(model)`` that makes its
model with every default; this module only knows their names. A package is imported when it
is looked at, so choosing one never loads the others' wire code.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Mapping
from typing import Protocol, cast

from .._contract import Model
from ..errors import ConfigError

__all__ = ["HTTP_PROVIDERS", "build_named", "from_env"]

HTTP_PROVIDERS = ("openai", "anthropic", "gemini", "ollama")
# The providers whose key picks them, in the order their keys are tried (a local Ollama
# needs no key, so it is only ever picked by name).
_KEYED = ("openai", "anthropic", "gemini")


class _ProviderPackage(Protocol):
    API_KEY_ENV_VARS: tuple[str, ...]

    def build(self, model: str | None = None) -> Model: ...


def _package(name: str) -> _ProviderPackage:
    return cast(_ProviderPackage, importlib.import_module(f"{__package__}.{name}"))


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
