"""What a web page can make a browser send, and what the gateway lets through: ``BrowserRules``.

A browser on the gateway's machine is a client any web page can drive. Without keys the
gateway serves loopback clients only, so it also checks what the browser says about the
page: the ``Host`` must be a loopback name (a DNS-rebound ``attacker.example`` resolving to
127.0.0.1 is not), and an ``Origin`` (or ``Sec-Fetch-Site``) from another site is refused.
With or without keys a POST body must be declared ``application/json``: forms and ``no-cors``
fetches can send ``text/plain`` without a preflight, never JSON. CORS headers go only to the
origins the operator lists (``cors_origins``); with none listed there is no CORS at all.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from .._errors import ConfigError
from ..providers._serving import GatewayError
from ._asgi import Exchange

__all__ = ["BrowserRules"]

_ANY = "*"
_METHODS = b"GET, POST, OPTIONS"
_EXPOSED = b"retry-after"
_MAX_AGE = b"600"
# A header list a preflight may ask for: tokens and commas only, so it is safe to echo.
_HEADER_LIST = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")


class BrowserRules:
    """The Host, Origin and content-type rules, and the CORS policy, of one gateway.

    Args:
        cors_origins: Origins (``https://app.example``) allowed to read answers from a
            browser; ``"*"`` allows every origin, and only with keys.
        keyless: The gateway has no API keys (it serves its own machine only).
    """

    def __init__(self, cors_origins: Iterable[str] | None, *, keyless: bool) -> None:
        self.keyless = keyless
        self.origins = _checked_origins(cors_origins, keyless=keyless)

    def check(self, exchange: Exchange) -> None:
        """Refuse what a hostile page could send; add CORS headers for an allowed origin."""
        origin = exchange.header(b"origin")
        allowed = origin is not None and self._allows(origin)
        if self.keyless:
            if not _loopback_host(exchange.header(b"host")):
                raise _refused("the Host header does not name this machine (localhost)")
            if not allowed and not _same_machine(origin, exchange.header(b"sec-fetch-site")):
                raise _refused("requests from other sites' pages are refused (Origin)")
        if allowed and origin is not None:
            exchange.extra_headers += _cors_headers(origin)

    def is_preflight(self, exchange: Exchange) -> bool:
        """``exchange`` is a CORS preflight (``OPTIONS`` with an origin and a method)."""
        return (
            exchange.scope["method"] == "OPTIONS"
            and exchange.header(b"origin") is not None
            and exchange.header(b"access-control-request-method") is not None
        )

    async def preflight(self, exchange: Exchange) -> None:
        """Answer a preflight: 204 with the CORS headers for an allowed origin, else 403."""
        origin = exchange.header(b"origin") or ""
        if not self._allows(origin):
            raise _refused("this origin is not allowed (no CORS policy lists it)")
        headers = [*_cors_headers(origin), (b"access-control-allow-methods", _METHODS)]
        asked = (exchange.header(b"access-control-request-headers") or "").strip()
        if asked and _HEADER_LIST.fullmatch(asked):
            headers.append((b"access-control-allow-headers", asked.encode("latin-1")))
        headers.append((b"access-control-max-age", _MAX_AGE))
        await exchange.start(204, headers)
        await exchange.body(b"", more=False)

    def _allows(self, origin: str) -> bool:
        return _ANY in self.origins or origin.lower() in self.origins


def require_json(exchange: Exchange) -> None:
    """Refuse a body not declared ``application/json`` with 415."""
    declared = (exchange.header(b"content-type") or "").split(";", 1)[0].strip().lower()
    if declared != "application/json":
        raise GatewayError(
            415, "invalid_request", "the body must be sent as Content-Type: application/json"
        )


def _refused(message: str) -> GatewayError:
    return GatewayError(
        403, "permission", f"this keyless gateway serves its own machine: {message}"
    )


def _cors_headers(origin: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", _EXPOSED),
        (b"vary", b"Origin"),
    ]


def _checked_origins(origins: Iterable[str] | None, *, keyless: bool) -> frozenset[str]:
    listed = [origins] if isinstance(origins, str) else list(origins or ())
    for origin in listed:
        if origin == _ANY and keyless:
            raise ConfigError("cors_origins '*' needs api_keys: every web page could use it")
        if origin != _ANY and not _is_origin(origin):
            raise ConfigError(
                f"cors_origins takes origins like 'https://app.example', not {origin!r}"
            )
    return frozenset(origin.lower() for origin in listed)


def _is_origin(value: object) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and not parts.path
        and not parts.query
        and not parts.fragment
        and "@" not in parts.netloc
    )


def _same_machine(origin: str | None, fetch_site: str | None) -> bool:
    """The page (if a browser says which) is served from this machine."""
    if origin is None:  # no page, or a same-origin GET; browsers add Sec-Fetch-Site
        return (fetch_site or "").lower() != "cross-site"
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and _is_loopback_name(parts.hostname or "")


def _loopback_host(host: str | None) -> bool:
    """A ``Host`` value naming this machine (any port); none at all is HTTP/1.0, no browser."""
    if host is None:
        return True
    name = host.strip().lower()
    if name.startswith("["):  # [::1] or [::1]:8000
        name = name[1 : name.find("]")] if "]" in name else ""
    elif name.count(":") == 1:
        name, _, port = name.partition(":")
        if not port.isdigit():
            return False
    return _is_loopback_name(name)


def _is_loopback_name(name: str) -> bool:
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
