"""The credentials a cassette must never hold, learnt from the requests it records.

A ``Lang`` sends every credential it holds with its requests: an API key or token in a header
(``Authorization``, ``x-api-key``, ``x-goog-api-key``...), a user and password in the base URL
(sent as ``Authorization: Basic``), a key in a query parameter (``?key=``, ``?apikey=``).
Each is blotted out where it sits, whatever its length; and each one long enough not to be a
common word is also replaced wherever else it appears (a body that quotes it, a header that
echoes it, a later exchange), so a server that echoes a key cannot leak it into the file.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import httpx

__all__ = ["REDACTED", "Secrets", "secret_header"]

REDACTED = "REDACTED"
_SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie"}
# Header and parameter names that say they carry a credential, matched at the end of the name
# (``x-goog-api-key``, ``ocp-apim-subscription-key``, ``x-amz-security-token``).
_HEADER_ENDINGS = ("-key", "-token", "-secret")
_PARAM_ENDINGS = ("apikey", "token", "secret", "password", "signature")
_PARAMS = {"key", "sig", "auth"}
# Shorter values are blotted out only where they sit: replaced in free text, a three-letter
# password would rewrite the bodies that a replay compares.
_MIN_FREE_TEXT = 8


def secret_header(name: str) -> bool:
    """Whether a (lower-case) header name carries a credential."""
    return name in _SECRET_HEADERS or name.endswith(_HEADER_ENDINGS)


def _secret_param(name: str) -> bool:
    flat = name.lower().replace("-", "").replace("_", "")
    return flat in _PARAMS or flat.endswith(_PARAM_ENDINGS)


class Secrets:
    """The credentials seen so far in one cassette's requests, and their redaction."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: set[str] = set()

    def learn(self, request: httpx.Request) -> None:
        """Note the credentials ``request`` carries: its userinfo, key parameters, key headers."""
        url = request.url
        self._add(url.username, url.password)
        for name, value in url.params.multi_items():
            if _secret_param(name):
                self._add(value)
        for name, value in request.headers.items():
            if secret_header(name):
                self._add_header(value)

    def _add_header(self, value: str) -> None:
        scheme, _, token = value.partition(" ")
        if not token:
            self._add(value)
            return
        self._add(token.strip())
        if scheme.lower() == "basic":
            try:
                pair = base64.b64decode(token.strip(), validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                return
            self._add(*pair.split(":", 1))

    def _add(self, *values: str) -> None:
        for value in values:
            if len(value) >= _MIN_FREE_TEXT:
                # As sent, percent-encoded in a URL, and escaped inside a JSON string.
                self._known.update((value, quote(value, safe=""), json.dumps(value)[1:-1]))

    def text(self, text: str) -> str:
        """``text`` with every known credential replaced, the longest first."""
        for secret in sorted(self._known, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def value(self, value: Any) -> Any:
        """A JSON value with every known credential replaced in its strings and keys."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value

    def url(self, url: str) -> str:
        """``url`` without its userinfo and credential parameters, and scrubbed of the rest."""
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
        query = [(k, REDACTED if _secret_param(k) else v) for k, v in parse_qsl(parts.query)]
        return self.text(urlunsplit(parts._replace(netloc=netloc, query=urlencode(query))))
