"""The local test server: a real HTTP server on 127.0.0.1 that answers like a provider.

Tests write answers as an ``httpx.MockTransport`` handler would (``httpx.Request`` in,
``httpx.Response`` out); ``local_client(handler)`` serves that handler from a threaded HTTP/1.1
server on 127.0.0.1 and returns an ``httpx.AsyncClient`` whose requests, whatever host the
provider's base URL names, travel over a real socket to it. So a test exercises the whole
transport (headers, content length, chunked reads, keep-alive) while the network is never
reached.
"""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

Handler = Callable[[httpx.Request], httpx.Response]
# Plain HTTP only; one context made once, since building httpx's default one loads the CA
# bundle (tens of milliseconds per client).
_UNUSED_TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)

__all__ = ["Handler", "LocalServer", "local_client"]


class LocalServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 answering every request with ``handler``."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []  # as received on the socket, in order
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _request_handler(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        poll = (0.005,)  # seconds; shutdown() waits up to one poll
        self._thread = threading.Thread(target=self._server.serve_forever, args=poll, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handler(request)


def _request_handler(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handle(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the providers' servers do

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = httpx.Request(
                self.command,
                f"http://127.0.0.1:{server.port}{self.path}",
                headers=list(self.headers.items()),
                content=self.rfile.read(length),
            )
            response = server.answer(request)
            body = response.read()
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: tests read requests, not logs

    return Handle


class _ToLocalServer(httpx.AsyncBaseTransport):
    """Sends every request over a socket to the local server, whatever host it names."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server
        self._inner = httpx.AsyncHTTPTransport(verify=_UNUSED_TLS)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http", host="127.0.0.1", port=self.server.port)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
        self.server.close()


def local_client(handler: Handler) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose requests are answered by ``handler`` on 127.0.0.1.

    Closing the client stops the server.
    """
    transport = _ToLocalServer(LocalServer(handler))
    return httpx.AsyncClient(transport=transport, trust_env=False, verify=_UNUSED_TLS)
