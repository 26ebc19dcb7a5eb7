"""Where Ollama listens: the server root by default and from ``OLLAMA_HOST``.

This module owns the wire's name and the ``OLLAMA_HOST`` conventions of Ollama's own clients;
the factories read the default root here instead of knowing the variable.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import urlsplit

from ... import _errors as errors

__all__ = ["DEFAULT_BASE_URL", "NAME", "default_base_url"]

DEFAULT_BASE_URL = "http://localhost:11434"
NAME = "ollama"


def default_base_url(env: Mapping[str, str] | None = None) -> str:
    """The server root from ``OLLAMA_HOST``, read the way Ollama's own clients read it.

    ``host``, ``host:port``, ``[::1]:port`` and ``scheme://host[:port][/path]`` are accepted.
    Without a scheme the URL is ``http`` on port 11434; with an explicit scheme and no port
    the scheme's own port applies (80/443), as in the ``ollama`` CLI. ``0.0.0.0`` and ``::``
    (what a server is told to *listen* on) are read as ``localhost`` so a client can connect.

    Args:
        env: The environment to read (``os.environ`` when not given).

    Raises:
        ConfigError: The value has an unknown scheme or a port that is not a number.
    """
    env = os.environ if env is None else env
    raw = env.get("OLLAMA_HOST", "").strip().rstrip("/")
    if not raw:
        return DEFAULT_BASE_URL
    scheme, sep, rest = raw.partition("://")
    scheme = scheme.lower() if sep else "http"
    if scheme not in ("http", "https"):
        raise errors.ConfigError(f"OLLAMA_HOST must use http or https, not {raw!r}")
    hostport, _, path = (rest if sep else raw).partition("/")
    host, port = _host_port(hostport, raw)
    if host in ("0.0.0.0", "::"):
        host = "localhost"
    port = port or (None if sep else 11434)
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{port}" if port else ""
    return f"{scheme}://{netloc}" + (f"/{path}" if path else "")


def _host_port(hostport: str, raw: str) -> tuple[str, int | None]:
    try:  # a bare IPv6 address (``::1``) has colons that are not a port separator
        return str(ipaddress.ip_address(hostport.strip("[]"))), None
    except ValueError:
        pass
    split = urlsplit(f"//{hostport}")
    try:
        return split.hostname or "localhost", split.port
    except ValueError as exc:
        raise errors.ConfigError(f"OLLAMA_HOST has an invalid port: {raw!r}") from exc
