"""The gateway: clients of every served wire, any ``Lang`` backend, tools translated both ways.

The wires are those whose provider packages export front-ends (``POST /v1/chat/completions``,
``/v1/responses`` and ``/v1/messages`` today).

``Gateway(routes)`` is a plain ASGI 3 application (it needs nothing beyond aiwrapper's own
dependencies); serve it with uvicorn (``pip install 'aiwrapper[gateway]'``) or any ASGI
server, or run ``python -m aiwrapper serve --route NAME=PROVIDER:MODEL``.
"""

from __future__ import annotations

from ._app import Gateway

__all__ = ["Gateway"]
