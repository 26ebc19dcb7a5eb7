"""The options of the model request the gateway makes for a client's request.

A translator, never an agent: each client request is one model request
(``auto_execute=False``, ``max_iterations=1``); the client runs its own tools. The upstream
request carries the route's own headers (a proxy's auth, say), any the client's wire asked
for, and the hop header, merged here because a layer's ``extra_headers`` replaces the lower
layer's whole.

The merged headers are handed over as one shared read-only mapping per distinct set: a
``Lang`` reuses its last call's merged options when a call passes the very same option
objects, so a request that sets nothing of its own (most of them) skips merging and
checking the option layers again. A fresh dict per request would be merged every time.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from .._run._options import LangOptions, OptionsLike, merge_options

__all__ = ["run_options"]

_TRANSLATOR = {"auto_execute": False, "max_iterations": 1}
# Distinct header sets kept: one per route and hop chain, more only for headers a client's
# wire sets per request; the cache starts over when full.
_MOST_SHARED = 64
_shared: dict[tuple[tuple[str, str], ...], Mapping[str, str]] = {}


def run_options(
    requested: Mapping[str, Any], route: OptionsLike, hops: Mapping[str, str]
) -> dict[str, Any]:
    """The options for ``Lang.chat`` / ``Lang.stream`` of the route whose ``Lang.options`` is
    ``route``: what the client's request set (``requested``), the translator's settings and
    the merged headers."""
    options = {name: value for name, value in requested.items() if value is not None}
    options.update(_TRANSLATOR)
    headers = {**_route_headers(route), **(options.get("extra_headers") or {}), **hops}
    options["extra_headers"] = _shared_headers(headers)
    return options


def _route_headers(route: OptionsLike) -> Mapping[str, str]:
    """The ``extra_headers`` a route's ``Lang.options`` sets (a ConfigError when not a dict)."""
    if isinstance(route, LangOptions):
        headers = route.extra_headers
    elif isinstance(route, Mapping):
        headers = route.get("extra_headers")
    else:
        headers = None
    if headers is None or isinstance(headers, Mapping):
        return headers or {}
    return merge_options(route).extra_headers or {}  # raises: says what is wrong


def _shared_headers(headers: dict[str, str]) -> Mapping[str, str]:
    """The one read-only mapping of these headers (``headers`` itself when not hashable)."""
    try:
        key = tuple(headers.items())
        shared = _shared.get(key)
    except TypeError:  # not strings: the run's option check refuses them
        return headers
    if shared is None:
        if len(_shared) >= _MOST_SHARED:
            _shared.clear()
        shared = _shared[key] = MappingProxyType(headers)
    return shared
