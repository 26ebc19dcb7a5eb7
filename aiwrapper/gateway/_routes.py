"""Routes read from the command line: ``NAME=PROVIDER:MODEL[@BASE_URL]`` as a ``Lang``.

PROVIDER is an HTTP provider's name, the preset of a compatible server (``groq``, ``vllm``...;
the registry knows both), ``offline`` (the offline model, no network) or ``scripted`` (answers
MODEL's text to every request: demos, tests). A base URL after ``@`` points the provider or
preset at another server; it must start with ``http://`` or ``https://``, so a model name with
an ``@`` in it (a cloud's ``model@version``) stays whole. ``ask --provider`` reads its
provider with the same names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._errors import ConfigError
from .._lang import Lang
from ..providers._registry import HTTP_PROVIDERS, build_for_route, build_named, route_providers

if TYPE_CHECKING:
    from .._conversation._messages import LangMessages
    from .._run._options import LangOptions

__all__ = ["lang_for", "parse_routes", "provider_names"]

_LOCAL = ("offline", "scripted")  # serve without network
_BASE_URL = re.compile(r"@(?=https?://)", re.IGNORECASE)


def provider_names() -> list[str]:
    """Every name PROVIDER may take: the HTTP providers, offline, scripted, the presets."""
    names = route_providers()
    return [*names[: len(HTTP_PROVIDERS)], *_LOCAL, *names[len(HTTP_PROVIDERS) :]]


def parse_routes(specs: Iterable[str]) -> dict[str, Lang]:
    """The route of each ``NAME=PROVIDER:MODEL[@BASE_URL]`` in ``specs``.

    Raises:
        ConfigError: A spec that is not of that form, names an unknown provider or a route
            twice, or whose provider cannot be built (a missing key, say).
    """
    routes: dict[str, Lang] = {}
    try:
        for spec in specs:
            name, lang = _route(spec)
            if name in routes:
                lang.close()
                raise ConfigError(f"the route {name!r} is given twice")
            routes[name] = lang
    except ConfigError:
        for lang in routes.values():
            lang.close()
        raise
    return routes


def lang_for(provider: str, model: str | None, base_url: str | None = None) -> Lang:
    """The ``Lang`` of ``provider``'s ``model`` (the provider's usual one when None).

    Raises:
        ConfigError: ``provider`` is no provider's name (the known ones are listed), or a
            preset is given no model.
    """
    if provider == "offline":
        return Lang.offline()
    if provider == "scripted":
        return Lang.scripted(functools.partial(_answer, model or "(scripted)"))
    if provider in HTTP_PROVIDERS and model is None and base_url is None:
        return Lang(build_named(provider))
    if provider.lower() not in provider_names():
        raise ConfigError(f"unknown provider {provider!r}; known: {', '.join(provider_names())}")
    if model is None:
        raise ConfigError(f"the compatible server's preset {provider!r} needs a model")
    return Lang(build_for_route(provider, model, base_url))


def _route(spec: str) -> tuple[str, Lang]:
    name, _, target = spec.partition("=")
    provider, _, rest = target.partition(":")
    model, base_url = _BASE_URL.split(rest, maxsplit=1) if _BASE_URL.search(rest) else (rest, None)
    if not name or not provider or not (model or provider in _LOCAL):
        raise ConfigError(f"{spec!r} is not NAME=PROVIDER:MODEL[@BASE_URL]")
    return name, lang_for(provider, model or None, base_url)


def _answer(text: str, messages: LangMessages, options: LangOptions) -> str:
    """A scripted route's turn: ``text``, whatever was asked (a script that never runs out)."""
    return text
