"""A route's credentials kept out of what the gateway says: ``Redactor`` and ``printable``.

An upstream's error message may quote the key it refused, a base URL may carry userinfo, and
a connection error names the URL it tried. Before any such text reaches a client or a log
line, the credentials the route's ``Lang`` holds (its API key, auth headers, tokens, the user
and password of its URL) are replaced, userinfo and query strings are cut from every URL, and
control characters are escaped so that a line of the log stays one line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlsplit

import httpx

from .._run._options import merge_options

if TYPE_CHECKING:
    from .._lang import Lang

__all__ = ["REDACTED", "Redactor", "printable", "scrub"]

REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"key|token|secret|passw|credential|auth", re.IGNORECASE)
_URL_NAME = re.compile(r"url|host|endpoint", re.IGNORECASE)
# Settings named like a credential that hold a field's name (``max_tokens_field``: "max_tokens"):
# replacing those words in an upstream's message would hide what it says.
_NOT_SECRETS = ("_field", "_fields", "_name", "_names")
_MIN_SECRET = 4  # shorter values are no credential, and replacing them would garble text
_DEPTH = 3  # model -> provider -> its config (Vertex's token, say)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")
_QUERY = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s?#\"']*)\?[^\s#\"']*")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class Redactor:
    """The credentials of one route's ``Lang``, and their removal from text."""

    def __init__(self, lang: Lang) -> None:
        found: set[str] = set()
        _collect(lang.model, found, _DEPTH)
        # Headers the route sends on every request (a proxy's auth, say) are credentials too.
        found.update(_header_secrets(merge_options(lang.options).extra_headers or {}))
        self.secrets = sorted((s for s in found if len(s) >= _MIN_SECRET), key=len, reverse=True)
        self.host = _host(lang)

    def __call__(self, text: str) -> str:
        """``text`` without the route's credentials, URLs' userinfo or query strings."""
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return scrub(text)


def scrub(text: str) -> str:
    """``text`` with every URL's userinfo and query string cut (either may hold a key)."""
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    return _QUERY.sub(r"\1", text)


def printable(text: str, limit: int = 500) -> str:
    """``text`` on one line (control characters escaped), at most ``limit`` characters."""
    # Printable text holds none of them: most of what is logged, without the regex.
    escaped = text if text.isprintable() else _CONTROL.sub(_escape, text)
    return escaped if len(escaped) <= limit else escaped[: limit - 3] + "..."


def _escape(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def _collect(obj: object, found: set[str], depth: int) -> None:
    for name, value in _fields(obj):
        if isinstance(value, str):
            if _SECRET_NAME.search(name) and not name.endswith(_NOT_SECRETS):
                found.add(value)
            elif _URL_NAME.search(name):
                found.update(_url_secrets(value))
        elif isinstance(value, (Mapping, httpx.Headers)) and "header" in name.lower():
            found.update(_header_secrets(value))
        elif isinstance(value, httpx.AsyncClient):  # a borrowed client's own auth headers
            found.update(_header_secrets(value.headers))
            found.update(_url_secrets(str(value.base_url)))
        elif depth and type(value).__module__.startswith("aiwrapper."):
            _collect(value, found, depth - 1)


def _fields(obj: object) -> Iterator[tuple[str, Any]]:
    names = set(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = getattr(cls, "__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    for name in sorted(names):
        value = getattr(obj, name, None)
        if value is not None:
            yield name, value


def _header_secrets(headers: Mapping[str, str] | httpx.Headers) -> Iterator[str]:
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):
            continue
        if _SECRET_NAME.search(name) or name.lower() == "cookie":
            scheme, _, credential = value.partition(" ")
            # Bearer KEY, Basic ...: the scheme's name is no secret, and stays readable.
            yield credential.strip() if credential and scheme.isalpha() else value


def _url_secrets(url: str) -> Iterator[str]:
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return
    for value in (parts.username, password):
        if value:
            yield value
            yield unquote(value)
    for name, value in parse_qsl(parts.query):
        if _SECRET_NAME.search(name):
            yield value


def _host(lang: Lang) -> str:
    """The upstream's host and port, from the URL the route's model sends its requests to.

    A provider whose URL depends on the model says so through ``model_url``; otherwise the
    first URL among the model's settings is it.
    """
    urls: list[str] = []
    model_url = getattr(getattr(lang.model, "provider", None), "model_url", None)
    if callable(model_url):
        # not the method this expects: the settings' URLs below say where, then
        with contextlib.suppress(AttributeError, TypeError, ValueError):
            urls.append(str(model_url(lang.model.model)))
    _urls(lang.model, urls, _DEPTH)
    for url in urls:
        try:
            parts = urlsplit(url)
            host = parts.hostname
            port = parts.port
        except ValueError:
            continue
        if host:
            return f"{host}:{port}" if port else host
    return lang.provider


def _urls(obj: object, urls: list[str], depth: int) -> None:
    for name, value in _fields(obj):
        if isinstance(value, str) and _URL_NAME.search(name) and "://" in value:
            urls.append(value)
        elif depth and type(value).__module__.startswith("aiwrapper."):
            _urls(value, urls, depth - 1)
