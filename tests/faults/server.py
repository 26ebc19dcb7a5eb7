"""A local test server on 127.0.0.1 that speaks every wire: it answers each request with a
short streamed text turn in the request's own wire format and keeps the raw request bodies,
so a test can check that a conversation is accepted over a real socket."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiwrapper import Lang

from . import wires

ANSWER = "fine"


def _wire_of(path: str) -> str:
    if path.startswith("/v1/chat/completions"):
        return "openai"
    if path.startswith("/v1/responses"):
        return "openai-responses"
    if path.startswith("/v1/messages"):
        return "anthropic"
    if path.startswith("/api/chat"):
        return "ollama"
    return "gemini"


class _Handler(BaseHTTPRequestHandler):
    server: LocalServer

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        name = _wire_of(self.path)
        self.server.bodies.append((name, body))
        answer = wires.TEXT[name](ANSWER)
        self.send_response(200)
        kind = "application/x-ndjson" if name == "ollama" else "text/event-stream"
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        pass


class LocalServer(ThreadingHTTPServer):
    """Started with ``start()``, stopped with ``stop()``; ``bodies`` holds (wire, body)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: list[tuple[str, bytes]] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def lang(self, name: str) -> Lang:
        """A ``Lang`` of wire ``name`` pointed at this server."""
        makers: dict[str, Callable[[], Lang]] = {
            "openai": lambda: Lang.openai(api_key="k", base_url=f"{self.url}/v1"),
            "anthropic": lambda: Lang.anthropic(api_key="k", base_url=self.url),
            "gemini": lambda: Lang.gemini(api_key="k", base_url=self.url),
            "ollama": lambda: Lang.ollama(base_url=self.url),
            "openai-responses": lambda: Lang.openai(
                "o3", api="responses", api_key="k", base_url=f"{self.url}/v1"
            ),
        }
        return makers[name]()
