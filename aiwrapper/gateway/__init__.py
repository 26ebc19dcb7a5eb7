"""The gateway: clients of every served wire, any ``Lang`` backend, tools translated both ways.

The wires are those whose provider packages export front-ends (``POST /v1/chat/completions``,
``/v1/responses`` and ``/v1/messages`` today).

``Gateway(routes)`` is a plain ASGI 3 application (it needs nothing beyond aiwrapper's own
dependencies); serve it with uvicorn (``pip install 'aiwrapper[gateway]'``) or any ASGI
server, or run ``python -m aiwrapper serve --route NAME=PROVIDER:MODEL``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._app import Gateway

__all__ = ["Gateway"]


def __getattr__(name: str) -> object:
    # The application loads on first use: the command line's ``ask`` reads route names from
    # ``_routes`` and should not pay for the app's imports (about half its start-up).
    if name == "Gateway":
        from ._app import Gateway

        return Gateway
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
