"""Bearer tokens that refresh themselves: fetched off the event loop, once for many requests.

A cloud token (Google's OAuth access tokens live an hour) is fetched by a blocking call that may
reach a token endpoint or a metadata server, so ``BearerToken`` runs it in a worker thread and
never on the event loop. A token is refreshed ``margin`` seconds before it expires, by whichever
request first finds it stale; the others wait for that one fetch behind a thread lock (a
``threading.Lock``, not an async one, so one ``Lang`` may serve several event loops, as the sync
facade does). A token whose expiry is unknown is kept until the server refuses it:
``refresh(stale)`` fetches again unless another request already replaced that token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import anyio.to_thread

__all__ = ["BearerToken", "Fetch"]

# A fetch returns the token and the time.time() at which it expires (None: unknown).
Fetch = Callable[[], tuple[str, float | None]]

# Google refreshes within 3 min 45 s of expiry; five minutes keeps a request that starts just
# before then from arriving with a token that expired in flight.
_MARGIN = 300.0


class BearerToken:
    """A token sent as ``Authorization: Bearer``, fetched by ``fetch`` and refreshed early.

    Args:
        fetch: Blocking; returns the token and its expiry (``time.time()`` seconds, or
            ``None`` when unknown). Runs in a worker thread.
        margin: Seconds before the expiry at which the token counts as stale.
        clock: The current time, as ``time.time`` (tests move it).
    """

    def __init__(
        self, fetch: Fetch, *, margin: float = _MARGIN, clock: Callable[[], float] = time.time
    ) -> None:
        self._fetch = fetch
        self._margin = margin
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expiry: float | None = None

    def __repr__(self) -> str:
        return "BearerToken(<hidden>)"

    async def token(self) -> str:
        """A fresh token: the one held, or one fetched in a worker thread."""
        token = self._token
        if token is not None and self._fresh():
            return token
        # A cancelled request stops waiting at once; the fetch it waited on still finishes,
        # in its thread, and keeps the token for the next request.
        return await anyio.to_thread.run_sync(self._current, abandon_on_cancel=True)

    async def refresh(self, stale: str) -> str:
        """A token other than ``stale`` (refused by the server), fetched at most once."""
        return await anyio.to_thread.run_sync(self._replace, stale, abandon_on_cancel=True)

    def _fresh(self) -> bool:
        return self._expiry is None or self._clock() < self._expiry - self._margin

    def _current(self) -> str:
        with self._lock:  # the first caller fetches; the others find its token
            if self._token is None or not self._fresh():
                self._store()
            assert self._token is not None
            return self._token

    def _replace(self, stale: str) -> str:
        with self._lock:
            if self._token in (None, stale):
                self._store()
            assert self._token is not None
            return self._token

    def _store(self) -> None:
        token, expiry = self._fetch()
        self._token, self._expiry = token, expiry
