"""``HttpSettings``: the transport keywords every ``Lang`` factory takes, as plain data.

Apart from the transport itself, so a provider package can declare its builder's keywords
without importing httpx: the transport is loaded only when a model is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpSettings"]


class HttpSettings(TypedDict, total=False):
    """How a model reaches its server: the transport keywords every ``Lang`` factory takes.

    Each is optional; ``HttpTransport`` documents them and their defaults (``timeout`` 60 s,
    ``max_retries`` 2, backoff from 0.5 s up to 8 s).
    """

    timeout: float | None
    max_retries: int
    http_client: httpx.AsyncClient | None
    max_connections: int | None
    retry_base_delay: float
    retry_max_delay: float
