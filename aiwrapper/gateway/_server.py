"""uvicorn set up for the open internet: ``ServerLimits`` and ``uvicorn_config``.

uvicorn by itself waits forever for a request's head (a client trickling header bytes holds
its connection open for good) and accepts connections until the process runs out of file
descriptors, after which nobody gets in. ``serve`` runs it with its HTTP protocol extended by
three limits (``_guard``): a request head must arrive whole within ``header_timeout`` seconds
and be at most ``max_header_bytes`` long, and at most ``max_connections`` connections stay
open: a new one past that closes the connection that has waited longest for a request head
(idle or trickling), or itself when every connection is busy with a request. The protocol is
httptools' where it is installed (``_httptoolsguard``; the ``gateway`` extra brings it), else
h11's (``_h11guard``); the event loop is uvloop where it is installed, else asyncio's. The
rest are uvicorn's own settings: the keep-alive timeout and, for h11, the size of a request
head (``h11_max_incomplete_event_size``). Bodies are the app's business
(``Gateway(max_body_bytes=, body_timeout=)``). Once set up, the process's objects are left out
of garbage collection for good (``settle``).
"""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._errors import ConfigError

if TYPE_CHECKING:
    import uvicorn

    from ._guard import HeadGuard, HeadLimits

__all__ = [
    "ServerLimits",
    "default_capacity",
    "http_protocol",
    "settle",
    "stack",
    "uvicorn_config",
]

_MAX_CONNECTIONS = 1000
_MAX_BACKLOG = 128
_SPARE_DESCRIPTORS = 64  # for the process itself: logs, the listening socket, imports


def default_capacity() -> tuple[int, int]:
    """The connection cap and listen backlog the file-descriptor limit can hold.

    asyncio accepts up to ``backlog`` connections at once before any is looked at, and each
    connection serving a request holds an upstream one: the cap leaves room for both. Out of
    descriptors, asyncio would log a traceback per failed accept and nobody would get in.
    """
    try:
        import resource
    except ImportError:  # Windows: no such limit to respect
        return _MAX_CONNECTIONS, _MAX_BACKLOG
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return _MAX_CONNECTIONS, _MAX_BACKLOG
    backlog = max(8, min(_MAX_BACKLOG, soft // 8))
    return max(1, min(_MAX_CONNECTIONS, (soft - _SPARE_DESCRIPTORS - backlog) // 2)), backlog


@dataclass(slots=True, frozen=True)
class ServerLimits:
    """How long and how much ``serve``'s uvicorn waits for and holds.

    Attributes:
        header_timeout: Seconds a request's head (request line and headers) may take.
        keep_alive_timeout: Seconds an idle keep-alive connection stays open.
        max_connections: Open connections at most (None: from the file-descriptor limit).
        max_header_bytes: The largest request head accepted.
    """

    header_timeout: float = 10.0
    keep_alive_timeout: int = 5
    max_connections: int | None = None
    max_header_bytes: int = 16 * 1024

    def __post_init__(self) -> None:
        numbers = {
            "header_timeout": self.header_timeout,
            "keep_alive_timeout": self.keep_alive_timeout,
            "max_connections": 1 if self.max_connections is None else self.max_connections,
            "max_header_bytes": self.max_header_bytes,
        }
        for name, value in numbers.items():
            if isinstance(value, bool) or not value > 0:
                raise ConfigError(f"{name} must be a positive number, not {value!r}")


def uvicorn_config(app: Any, *, host: str, port: int, limits: ServerLimits) -> uvicorn.Config:
    """The uvicorn configuration ``serve`` runs ``app`` with."""
    import uvicorn

    cap, backlog = default_capacity()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=http_protocol(limits, limits.max_connections or cap),
        loop=_event_loop(),
        backlog=backlog,
        ws="none",  # the gateway speaks no WebSocket
        lifespan="on",
        access_log=False,  # the gateway writes its own lines, without keys or bodies
        server_header=False,
        timeout_keep_alive=limits.keep_alive_timeout,
        h11_max_incomplete_event_size=limits.max_header_bytes,
        timeout_graceful_shutdown=10,  # how long in-flight streams may go on after a signal
    )


def http_protocol(limits: HeadLimits, max_connections: int) -> type[asyncio.Protocol]:
    """The protocol class uvicorn is given: httptools' where installed, else h11's, guarded."""
    base: type[HeadGuard]
    try:
        from ._httptoolsguard import GuardedHttpTools

        base = GuardedHttpTools
    except ImportError:  # no httptools: uvicorn's httptools module fails to import too
        from ._h11guard import GuardedH11

        base = GuardedH11
    settings = {"limits": limits, "max_connections": max_connections}
    return type(base.__name__, (base,), settings)


def _event_loop() -> str:
    """uvicorn's name for the event loop: uvloop where installed (never on Windows)."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def stack(config: uvicorn.Config) -> str:
    """What ``config`` serves with, for a person: its HTTP parser and its event loop."""
    return f"{getattr(config.http, 'http_parser', config.http)}, {config.loop}"


def settle(config: uvicorn.Config) -> None:
    """Load ``config`` (uvicorn's imports and app wrapping), then freeze what the process holds.

    A full garbage collection cannot be interrupted and walks every object the collector
    tracks: set up, a gateway process holds about 40,000 (modules, routes, uvicorn), a walk of
    about 20 ms that would hold the event loop at every full collection. They live as long as
    the process, so they are moved out of the collector's sight once (``gc.freeze``); what
    requests create is collected as before. This is the gateway's own process, so the setting
    is its to make; an application embedding ``Gateway`` may do the same after its set-up.
    """
    if not config.loaded:
        config.load()
    gc.collect()
    gc.freeze()
